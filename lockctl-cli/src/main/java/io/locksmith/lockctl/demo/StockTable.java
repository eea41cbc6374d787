package io.locksmith.lockctl.demo;

/**
 * The "database": one row of stock for the hot item, {@code (sku, qty, fence)}. The row remembers the
 * highest token that touched it. A fenced table refuses any statement carrying a lower token:
 * <pre>
 * SELECT qty FROM stock WHERE sku = ?   -- then: UPDATE stock SET fence = :token WHERE sku = ? AND fence &lt;= :token
 * UPDATE stock SET qty = qty - 1, fence = :token WHERE sku = ? AND fence &lt;= :token
 * </pre>
 * An unfenced table (the naive service's) applies every statement; it still counts, for the report, the
 * writes that arrived after a newer holder had touched the row: the stale writes the fence would have
 * stopped.
 */
final class StockTable {

    /** What a fenced statement returns when it is refused. */
    static final int REJECTED = Integer.MIN_VALUE;

    private final boolean fenced;
    private int quantity;
    private long fence;
    private int unitsSold;
    private int staleWritesApplied;
    private int staleStatementsRejected;

    StockTable(int quantity, boolean fenced) {
        this.quantity = quantity;
        this.fenced = fenced;
    }

    /** Reads the quantity on behalf of the holder of {@code token}, or {@link #REJECTED} if a newer holder came first. */
    synchronized int select(long token) {
        if (token < fence) {
            if (fenced) {
                staleStatementsRejected++;
                return REJECTED;
            }
        } else {
            fence = token;
        }
        return quantity;
    }

    /** Takes one unit; false if the fence refused the write. The quantity is not checked here: the caller did, earlier. */
    synchronized boolean deductOne(long token) {
        if (token < fence) {
            if (fenced) {
                staleStatementsRejected++;
                return false;
            }
            staleWritesApplied++;
        } else {
            fence = token;
        }
        quantity--;
        unitsSold++;
        return true;
    }

    synchronized int quantity() {
        return quantity;
    }

    synchronized int unitsSold() {
        return unitsSold;
    }

    synchronized int staleWritesApplied() {
        return staleWritesApplied;
    }

    synchronized int staleStatementsRejected() {
        return staleStatementsRejected;
    }
}
