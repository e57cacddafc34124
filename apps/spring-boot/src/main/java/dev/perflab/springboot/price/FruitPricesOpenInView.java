package dev.perflab.springboot.price;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Spring Boot's default session handling, open-in-view, for /fruit-prices only: the interceptor
 * that spring.jpa.open-in-view=true would register for every request, here registered for
 * /fruit-prices and /fruit-prices/{name} alone. It opens an EntityManager when the request
 * arrives and closes it once the response is written, so lazy associations can be loaded while
 * Jackson writes them. The app keeps spring.jpa.open-in-view=false, so no other endpoint changes;
 * /fruit-prices-joined loads everything in its query and does without.
 */
@Configuration(proxyBeanMethods = false)
class FruitPricesOpenInView {

    // A bean, so that it finds the application's EntityManagerFactory in the context.
    @Bean
    OpenEntityManagerInViewInterceptor fruitPricesOpenEntityManagerInViewInterceptor() {
        return new OpenEntityManagerInViewInterceptor();
    }

    @Bean
    WebMvcConfigurer fruitPricesOpenEntityManagerInView(OpenEntityManagerInViewInterceptor interceptor) {
        return new WebMvcConfigurer() {
            @Override
            public void addInterceptors(InterceptorRegistry registry) {
                registry.addWebRequestInterceptor(interceptor).addPathPatterns("/fruit-prices", "/fruit-prices/**");
            }
        };
    }
}
