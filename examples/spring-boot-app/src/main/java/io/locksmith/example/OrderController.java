package io.locksmith.example;

import io.locksmith.LockTimeoutException;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /orders/{id}/ship}. */
@RestController
public class OrderController {

    private final OrderService orders;

    public OrderController(OrderService orders) {
        this.orders = orders;
    }

    @PostMapping("/orders/{orderId}/ship")
    public OrderService.Shipment ship(@PathVariable long orderId) {
        return orders.ship(orderId);
    }

    /** A busy order is a conflict the caller may retry, not a server error. */
    @ExceptionHandler(LockTimeoutException.class)
    @ResponseStatus(HttpStatus.CONFLICT)
    public String busy(LockTimeoutException e) {
        return e.getMessage();
    }
}
