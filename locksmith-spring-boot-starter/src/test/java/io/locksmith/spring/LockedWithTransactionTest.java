package io.locksmith.spring;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** The lock is taken before the transaction begins and released after it commits or rolls back. */
class LockedWithTransactionTest {

    /** A transaction manager that records, at each step, whether the calling thread held a @Locked lease. */
    static class RecordingTransactionManager extends AbstractPlatformTransactionManager {
        private static final long serialVersionUID = 1L;
        final List<String> steps = new CopyOnWriteArrayList<>();

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, org.springframework.transaction.TransactionDefinition definition) {
            steps.add("begin, lock held: " + LockContext.current().map(lease -> lease.isHeld()).orElse(false));
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            steps.add("commit, lock held: " + LockContext.current().map(lease -> lease.isHeld()).orElse(false));
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            steps.add("rollback, lock held: " + LockContext.current().map(lease -> lease.isHeld()).orElse(false));
        }
    }

    static class StockService {
        @Locked(name = "'stock:' + #sku")
        @Transactional
        public void deduct(String sku) {
        }

        @Locked(name = "'stock:' + #sku")
        @Transactional
        public void failToDeduct(String sku) {
            throw new IllegalStateException("out of stock: " + sku);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Transactions {
        @Bean
        RecordingTransactionManager transactionManager() {
            return new RecordingTransactionManager();
        }

        @Bean
        StockService stockService() {
            return new StockService();
        }
    }

    @Test
    void transactionCommitsAndRollsBackInsideTheLock() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
                .withUserConfiguration(Transactions.class)
                .withPropertyValues("locksmith.uri=mem://tx-" + UUID.randomUUID())
                .run(context -> {
                    StockService service = context.getBean(StockService.class);
                    RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
                    service.deduct("sku-1");
                    try {
                        service.failToDeduct("sku-2");
                    } catch (IllegalStateException expected) {
                        // the rollback is what this test looks at
                    }
                    assertThat(transactions.steps).containsExactly("begin, lock held: true", "commit, lock held: true",
                            "begin, lock held: true", "rollback, lock held: true");
                });
    }
}
