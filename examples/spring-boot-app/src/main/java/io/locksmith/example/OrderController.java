package io.locksmith.example;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders/{id}/ship}. A busy order answers 409 with {@code Retry-After} and a store outage 503, as
 * problem details: the starter maps the lock exceptions, so the controller has no handler of its own.
 */
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
}
