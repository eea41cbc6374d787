package example.springparent;

import io.locksmith.spring.LockContext;
import io.locksmith.spring.Locked;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** {@code POST /stock/{sku}/deduct}: one deduction of a SKU at a time, fenced. */
@RestController
public class StockController {

    private final Stock stock;

    public StockController(Stock stock) {
        this.stock = stock;
    }

    @PostMapping("/stock/{sku}/deduct")
    public Map<String, Object> deduct(@PathVariable String sku) {
        return stock.deduct(sku);
    }

    /** The guarded resource: rejects a write whose token is not above the last one it accepted. */
    @Service
    public static class Stock {
        private final Map<String, Long> fences = new ConcurrentHashMap<>();

        @Locked(name = "'stock:' + #sku", waitTime = "${stock.lock-wait:3s}")
        public Map<String, Object> deduct(String sku) {
            long token = LockContext.currentFencingToken();
            Long previous = fences.get(sku);
            boolean accepted = previous == null || token > previous;
            if (accepted) {
                fences.put(sku, token);
            }
            return Map.of("lock", LockContext.currentLease().lockName(), "token", token, "accepted", accepted);
        }
    }
}
