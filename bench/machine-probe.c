/*
 * How busy the processor core is, for bench/compare.sh: two loops of fixed work, timed.
 *
 *   cc -O2 -o machine-probe bench/machine-probe.c
 *   machine-probe          prints: throughput loop T s, latency loop L s
 *
 * The throughput loop keeps the core's execution units busy (eight additions a step, each on its
 * own sum); the latency loop waits on one multiplication after another. On a virtual machine whose
 * physical core another guest shares, the first slows when that guest is busy and the second
 * hardly does (docs/benchmarks.md, thirty-second session, has the figures). pipectl runs about
 * twice the floor's instructions and loses more seconds to such a spell, so compare.sh prints both
 * loops before and after its rounds. On the CI machine the throughput loop took about three
 * quarters of the latency loop's time when the core was calm (0.35 s against 0.48 s) and more than
 * all of it in a busy spell (0.63 s): ratios measured then say more about the neighbour.
 */
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void) {
    double start = now();
    unsigned long x0 = 1, x1 = 2, x2 = 3, x3 = 4, x4 = 5, x5 = 6, x6 = 7, x7 = 8;
    for (unsigned long i = 0; i < 200000000UL; i++) {
        x0 += x1 ^ i; x1 += x2 ^ i; x2 += x3 ^ i; x3 += x4 ^ i;
        x4 += x5 ^ i; x5 += x6 ^ i; x6 += x7 ^ i; x7 += x0 ^ i;
        /* Keeps the sums in registers and the loop as written (no vectorizing it away). */
        __asm__ volatile("" : "+r"(x0), "+r"(x3), "+r"(x5), "+r"(x7));
    }
    double middle = now();
    unsigned long y = x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7;
    for (unsigned long i = 0; i < 300000000UL; i++) y = y * 6364136223846793005UL + 1442695040888963407UL;
    __asm__ volatile("" : "+r"(y));
    double end = now();
    printf("throughput loop %.2f s, latency loop %.2f s\n", middle - start, end - middle);
    return 0;
}
