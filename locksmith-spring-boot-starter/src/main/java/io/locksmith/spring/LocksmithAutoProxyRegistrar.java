package io.locksmith.spring;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Makes sure an auto-proxy creator exists for the {@link Locked} advisor, as {@code @EnableTransactionManagement}
 * does: Boot's own AOP auto-configuration may be switched off ({@code spring.aop.auto=false}). An existing, more
 * capable creator (AspectJ-aware) is kept.
 */
final class LocksmithAutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
    }
}
