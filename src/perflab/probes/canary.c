/* Host-speed canary: a fixed CPU-bound workload whose time says how fast this CPU is right now.

   usage: canary [REPS [WORK [CPU,CPU,... [EVERY_MS]]]]

   REPS (default 5) repetitions, each of two timed parts:
   - alu: a dependent chain of WORK xorshift-multiply steps (no memory traffic, no parallelism);
   - mem: WORK / 8 steps of a pointer chase through a 4 MiB buffer holding one random cycle
     (Sattolo's algorithm, fixed seed), so every step is a dependent load that misses L1/L2.
   With a CPU list the program pins itself to those CPUs before anything else.

   stdout: one line per repetition, "ALU_NS MEM_NS CHECK", nothing else. CHECK is the chain's and
   the chase's end value: it is the same on every repetition and every run (the work is fixed),
   and printing it keeps the compiler from dropping the work. Buffers are allocated and touched
   before timing; nothing is allocated while timed. With PERFLAB_CANARY_SHOW_CPU set, the CPU the
   last repetition ended on is written to stderr as "cpu N". Errors: stderr, exit status 2.

   With EVERY_MS the canary follows a launch: it runs the integer chain alone (no chase: beside a
   busy app the chase would time the app's use of the cache) once every EVERY_MS milliseconds (REPS
   times, or until it is stopped or its parent dies), timed on its own thread's CPU clock, not the
   wall clock: it then shares a CPU with the app, and its wall time would measure the app's queue,
   its CPU time the CPU's own speed (frequency, an SMT sibling's load; steal is not counted). Each
   line, flushed at once, is "END_NS ALU_NS CHECK", END_NS the chain's end on CLOCK_MONOTONIC. */

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <time.h>

#define DEFAULT_REPS 5
#define DEFAULT_WORK 4000000L
#define MEM_DIVISOR 8
#define SLOTS (1u << 20) /* 4 MiB of uint32_t */
#define SEED 0x9E3779B97F4A7C15ull

/* Read through volatile on every repetition, so the compiler cannot compute the (fixed) work
   once and reuse it; written with the warm-up's result, so the warm-up is not dropped. */
static volatile uint64_t start_x = SEED;
static volatile uint32_t start_at = 0;
static volatile uint64_t sink;

/* Makes the value needed here: the work before a clock reading cannot move after it. */
#define KEEP(value) __asm__ volatile("" : : "r"(value) : "memory")

static int fail(const char *what) {
    fprintf(stderr, "canary: %s\n", what);
    return 2;
}

static long parse_count(const char *text, long max) {
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || *text == '\0' || *end != '\0' || value < 1 || value > max) return -1;
    return value;
}

static int pin(const char *list) {
    cpu_set_t set;
    CPU_ZERO(&set);
    const char *p = list;
    while (*p) {
        char *end;
        errno = 0;
        long cpu = strtol(p, &end, 10);
        if (errno || end == p || cpu < 0 || cpu >= CPU_SETSIZE || (*end != ',' && *end != '\0'))
            return fail("the CPU list must be numbers separated by commas, e.g. 0,1");
        CPU_SET((int)cpu, &set);
        p = *end == ',' ? end + 1 : end;
    }
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "canary: cannot run on CPUs %s: %s\n", list, strerror(errno));
        return 2;
    }
    return 0;
}

static uint64_t xorshift(uint64_t x) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

static uint64_t alu(uint64_t x, long steps) {
    for (long i = 0; i < steps; i++) x = xorshift(x) * 0x2545F4914F6CDD1Dull;
    return x;
}

static uint32_t chase(const uint32_t *next, uint32_t at, long steps) {
    for (long i = 0; i < steps; i++) at = next[at];
    return at;
}

static int64_t clock_ns(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int64_t now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

/* One chain every `every_ms` on the thread's CPU clock, each line stamped with its end. */
static int follow(long reps, long work, long every_ms) {
    struct timespec due;
    clock_gettime(CLOCK_MONOTONIC, &due);
    for (long r = 0; r < reps; r++) {
        due.tv_nsec += (every_ms % 1000) * 1000000;
        due.tv_sec += every_ms / 1000 + due.tv_nsec / 1000000000;
        due.tv_nsec %= 1000000000;
        int64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        uint64_t x = alu(start_x, work);
        KEEP(x);
        int64_t t1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        if (printf("%lld %lld %016llx\n", (long long)now_ns(), (long long)(t1 - t0), (unsigned long long)x) < 0
            || fflush(stdout) != 0)
            return fail("cannot write to stdout");
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL) == EINTR) {}
    }
    return 0;
}

int main(int argc, char **argv) {
    long reps = DEFAULT_REPS, work = DEFAULT_WORK;
    long every_ms = 0;
    if (argc > 5) return fail("usage: canary [REPS [WORK [CPU,CPU,... [EVERY_MS]]]]");
    if (argc > 1 && (reps = parse_count(argv[1], 100000)) < 0)
        return fail("REPS must be a whole number from 1 to 100000");
    if (argc > 2 && (work = parse_count(argv[2], 1L << 40)) < 0)
        return fail("WORK must be a whole number from 1 to 2^40");
    if (argc > 3 && pin(argv[3]) != 0) return 2;
    if (argc > 4 && (every_ms = parse_count(argv[4], 3600000)) < 0)
        return fail("EVERY_MS must be a whole number from 1 to 3600000");
    /* a follower outlives no parent: killed with it, it would otherwise read on for REPS periods */
    if (every_ms && (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() == 1)) return fail("no parent to follow");
    if (every_ms) return follow(reps, work, every_ms); /* the chain only: no buffer, no chase */

    /* Small pages on purpose: whether the kernel grants huge pages varies between runs and
       hosts, and would change the chase's TLB misses with it. */
    size_t bytes = SLOTS * sizeof(uint32_t);
    uint32_t *next = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (next == MAP_FAILED) return fail("cannot map the 4 MiB buffer");
    madvise(next, bytes, MADV_NOHUGEPAGE);

    /* Sattolo's shuffle of the identity: one cycle through every slot. */
    for (uint32_t i = 0; i < SLOTS; i++) next[i] = i;
    uint64_t seed = SEED;
    for (uint32_t i = SLOTS - 1; i > 0; i--) {
        seed = xorshift(seed);
        uint32_t j = (uint32_t)(seed % i);
        uint32_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }

    long mem_steps = work / MEM_DIVISOR > 0 ? work / MEM_DIVISOR : 1;
    sink = alu(start_x, work) ^ chase(next, start_at, mem_steps); /* untimed: warms caches, TLB */
    for (long r = 0; r < reps; r++) {
        int64_t t0 = now_ns();
        uint64_t x = alu(start_x, work);
        KEEP(x);
        int64_t t1 = now_ns();
        uint32_t at = chase(next, start_at, mem_steps);
        KEEP(at);
        int64_t t2 = now_ns();
        if (printf("%lld %lld %016llx\n", (long long)(t1 - t0), (long long)(t2 - t1),
                   (unsigned long long)(x ^ at)) < 0)
            return fail("cannot write to stdout");
    }
    if (fflush(stdout) != 0) return fail("cannot write to stdout");
    if (getenv("PERFLAB_CANARY_SHOW_CPU")) fprintf(stderr, "cpu %d\n", sched_getcpu());
    return 0;
}
