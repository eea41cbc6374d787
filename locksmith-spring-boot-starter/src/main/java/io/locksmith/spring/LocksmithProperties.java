package io.locksmith.spring;

import io.locksmith.LossAction;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * The {@code locksmith.*} settings of {@code application.yml}:
 * <pre>
 * locksmith:
 *   uri: redis://127.0.0.1:6379      # the only required setting; the scheme picks the store
 *   lease: 30s
 *   max-hold: 10m
 * </pre>
 * Lease settings may be written here or as URI parameters ({@code ?lease=30s&amp;renew=false&amp;maxHold=10m}),
 * not both: the client refuses the mix rather than guessing which one wins.
 */
@ConfigurationProperties(prefix = "locksmith")
public class LocksmithProperties {

    /** Whether to auto-configure a LockClient at all. */
    private boolean enabled = true;
    /**
     * The lock store URI, e.g. mem://, redis://127.0.0.1:6379, zookeeper://h1:2181/locks, etcd://h1:2379. The
     * environment variable LOCKSMITH_URI sets it too.
     */
    private String uri;
    /** Default lease time: how long the store keeps a lock after the last acquire or renewal. Default 30s. */
    private Duration lease;
    /** Whether the client renews leases while they are held (default true); false gives fixed leases. */
    private Boolean renew;
    /** Default maximum hold time: renewal stops after this long. Default 10m. */
    private Duration maxHold;
    /** What happens on lease loss beyond marking the lease lost. Default NOTIFY. */
    private LossAction onLoss;
    /** The client id (1 to 64 characters of [A-Za-z0-9._:-]); a random UUID when unset. */
    private String clientId;
    /** Upper bound of the backoff poll that backs up release notifications. Default 1s. */
    private Duration maxPollInterval;
    /**
     * What happens when the store does not answer at startup: FAIL the startup, or start LAZY (health DOWN and lock
     * calls failing at once until the store answers; a configuration error still fails the startup).
     */
    private Startup startup = Startup.FAIL;

    /** Values of {@code locksmith.startup}. */
    public enum Startup {
        /** The application does not start while the store does not answer. */
        FAIL,
        /** The application starts; the client connects in the background, failing lock calls until then. */
        LAZY
    }

    public Startup getStartup() {
        return startup;
    }

    public void setStartup(Startup startup) {
        this.startup = startup;
    }

    private final Annotation annotation = new Annotation();
    private final Metrics metrics = new Metrics();
    private final Logging logging = new Logging();
    private final Health health = new Health();
    private final Web web = new Web();
    private final SpringDataRedis springDataRedis = new SpringDataRedis();

    /** How the starter uses the application's Spring Data Redis configuration (spring.data.redis.*). */
    public static class SpringDataRedis {
        /**
         * Whether to read spring.data.redis.*: without locksmith.uri the locks go to that Redis (through Lettuce when it
         * is on the class path); with a Redis locksmith.uri naming other servers, startup fails. False keeps a separate
         * lock store on purpose.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** How lock failures are answered in Spring MVC and Spring WebFlux applications. */
    public static class Web {
        /** Whether lock failures reaching a controller are answered with problem details (409/503). */
        private boolean problemDetails = true;
        /** The status of a lock wait that timed out: 409 (the resource is busy) or 503. */
        private int lockTimeoutStatus = 409;
        /** The Retry-After of the 409 and 503 answers (whole seconds, rounded up). */
        private Duration retryAfter = Duration.ofSeconds(1);

        public boolean isProblemDetails() {
            return problemDetails;
        }

        public void setProblemDetails(boolean problemDetails) {
            this.problemDetails = problemDetails;
        }

        public int getLockTimeoutStatus() {
            return lockTimeoutStatus;
        }

        public void setLockTimeoutStatus(int lockTimeoutStatus) {
            this.lockTimeoutStatus = lockTimeoutStatus;
        }

        public Duration getRetryAfter() {
            return retryAfter;
        }

        public void setRetryAfter(Duration retryAfter) {
            this.retryAfter = retryAfter;
        }
    }

    /** Settings of the {@link Locked @Locked} annotation. */
    public static class Annotation {
        /** Whether methods annotated with @Locked are guarded. */
        private boolean enabled = true;
        /** How long a @Locked method waits for its lock when the annotation sets no wait. */
        private Duration defaultWait = Duration.ofSeconds(3);
        /**
         * Order of the @Locked advisor among other advisors. The default runs it before (outside) @Transactional,
         * so the transaction commits before the lock is released.
         */
        private int order = LockedMethodAdvisor.DEFAULT_ORDER;
        /**
         * What a @Locked method that sets neither onFailure nor failureHandler does when its lock is not obtained
         * (busy for the whole wait, or a store error): THROW the LockTimeoutException or LockStoreException, or
         * SKIP the method (return null or an empty Optional).
         */
        private Locked.OnFailure onFailure = Locked.OnFailure.THROW;
        /**
         * The name of a LockFailureHandler bean deciding the outcome of every @Locked call whose lock was not
         * obtained, for methods that choose no strategy of their own. Not together with on-failure.
         */
        private String failureHandler;

        public Locked.OnFailure getOnFailure() {
            return onFailure;
        }

        public void setOnFailure(Locked.OnFailure onFailure) {
            this.onFailure = onFailure;
        }

        public String getFailureHandler() {
            return failureHandler;
        }

        public void setFailureHandler(String failureHandler) {
            this.failureHandler = failureHandler;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getDefaultWait() {
            return defaultWait;
        }

        public void setDefaultWait(Duration defaultWait) {
            this.defaultWait = defaultWait;
        }

        public int getOrder() {
            return order;
        }

        public void setOrder(int order) {
            this.order = order;
        }
    }

    /** Settings of the Micrometer meters. */
    public static class Metrics {
        /** Whether lock meters are registered (when a MeterRegistry exists). */
        private boolean enabled = true;
        /** The group tag of a lock name is its part before this separator ("order:1001" is in group "order"). */
        private String nameGroupSeparator = ":";
        /** At most this many distinct group tag values; later groups are reported as "other". */
        private int maxNameGroups = 50;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getNameGroupSeparator() {
            return nameGroupSeparator;
        }

        public void setNameGroupSeparator(String nameGroupSeparator) {
            this.nameGroupSeparator = nameGroupSeparator;
        }

        public int getMaxNameGroups() {
            return maxNameGroups;
        }

        public void setMaxNameGroups(int maxNameGroups) {
            this.maxNameGroups = maxNameGroups;
        }
    }

    /** Settings of the lock event log (logger io.locksmith.events). */
    public static class Logging {
        /** Whether acquire, release, renewal failure and loss are logged by the io.locksmith.events logger. */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** Settings of the actuator health indicator. */
    public static class Health {
        /** The lock name the health check inspects to prove the store answers; nobody needs to hold it. */
        private String probeName = "locksmith:health-probe";

        public String getProbeName() {
            return probeName;
        }

        public void setProbeName(String probeName) {
            this.probeName = probeName;
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getUri() {
        return uri;
    }

    public void setUri(String uri) {
        this.uri = uri;
    }

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    public Boolean getRenew() {
        return renew;
    }

    public void setRenew(Boolean renew) {
        this.renew = renew;
    }

    public Duration getMaxHold() {
        return maxHold;
    }

    public void setMaxHold(Duration maxHold) {
        this.maxHold = maxHold;
    }

    public LossAction getOnLoss() {
        return onLoss;
    }

    public void setOnLoss(LossAction onLoss) {
        this.onLoss = onLoss;
    }

    public String getClientId() {
        return clientId;
    }

    public void setClientId(String clientId) {
        this.clientId = clientId;
    }

    public Duration getMaxPollInterval() {
        return maxPollInterval;
    }

    public void setMaxPollInterval(Duration maxPollInterval) {
        this.maxPollInterval = maxPollInterval;
    }

    public Annotation getAnnotation() {
        return annotation;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Logging getLogging() {
        return logging;
    }

    public Health getHealth() {
        return health;
    }

    public Web getWeb() {
        return web;
    }

    public SpringDataRedis getSpringDataRedis() {
        return springDataRedis;
    }
}
