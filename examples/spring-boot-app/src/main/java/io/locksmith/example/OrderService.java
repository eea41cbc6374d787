package io.locksmith.example;

import io.locksmith.spring.LockContext;
import io.locksmith.spring.Locked;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/** Ships orders, one shipment of an order at a time across every instance of the application. */
@Service
public class OrderService {

    private static final Logger LOG = LoggerFactory.getLogger(OrderService.class);

    private final ShippingLedger ledger;

    public OrderService(ShippingLedger ledger) {
        this.ledger = ledger;
    }

    /** The outcome of a shipment: the fencing token it was written with, and whether the ledger accepted it. */
    public record Shipment(long orderId, String lock, long fencingToken, boolean accepted) {
    }

    /**
     * Ships an order under the lock {@code order:<id>}, waiting up to {@code orders.lock-wait} (3 s) for it.
     *
     * @throws io.locksmith.LockTimeoutException if another instance kept the order locked for that long
     */
    @Locked(name = "'order:' + #orderId", waitTime = "${orders.lock-wait:3s}", leaseTime = "10s")
    public Shipment ship(long orderId) {
        long token = LockContext.currentFencingToken();
        LOG.info("shipping order {} with fencing token {}", orderId, token);
        boolean accepted = ledger.ship(orderId, token);
        return new Shipment(orderId, LockContext.currentLease().lockName(), token, accepted);
    }
}
