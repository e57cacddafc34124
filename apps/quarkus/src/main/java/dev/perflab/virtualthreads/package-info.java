/**
 * The imperative endpoints again, declared on virtual threads: each class is its worker-thread
 * twin in dev.perflab plus {@code @RunOnVirtualThread}, and delegates to the same services and
 * entities. They exist only in the build made with -Dperflab.virtual-threads=true (mode
 * virtual-threads), which leaves the twins out.
 *
 * <p>Why a build and two declarations, not a start-up switch: Quarkus REST decides the thread of an
 * endpoint at build time from {@code @RunOnVirtualThread} on the method or on the class that
 * declares it (not a subclass), rejects the annotation in an application compiled for Java 17 (the
 * default build, which must run on JDK 17), and fixes quarkus.virtual-threads.enabled at build
 * time. A {@code @RunOnVirtualThread} JAX-RS Application would cover every endpoint at once, but
 * Quarkus 3.37 treats its endpoints as non-blocking and runs a method with a request body on the
 * event loop after reading it.
 */
package dev.perflab.virtualthreads;
