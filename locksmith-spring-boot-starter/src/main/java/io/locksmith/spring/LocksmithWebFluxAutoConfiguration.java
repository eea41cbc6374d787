package io.locksmith.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ProblemDetail;
import org.springframework.web.reactive.DispatcherHandler;

/**
 * Maps lock failures in Spring WebFlux applications to the same problem details as in Spring MVC (409/503 with
 * {@code Retry-After}); see {@link LockProblemDetails}. Off with {@code locksmith.web.problem-details=false}.
 */
@AutoConfiguration(after = LocksmithAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({DispatcherHandler.class, ProblemDetail.class})
@ConditionalOnBooleanProperty(name = {"locksmith.enabled", "locksmith.web.problem-details"}, matchIfMissing = true)
public class LocksmithWebFluxAutoConfiguration {

    /** The {@code @RestControllerAdvice} for lock failures; WebFlux applies the same advice as MVC. */
    @Bean
    @ConditionalOnMissingBean
    public LockProblemDetails lockProblemDetails(LocksmithProperties properties) {
        LocksmithProperties.Web web = properties.getWeb();
        return new LockProblemDetails(web.getLockTimeoutStatus(), web.getRetryAfter());
    }
}
