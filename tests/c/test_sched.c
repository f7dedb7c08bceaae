/* test_sched.c - the chunk scheduler: every chunk exactly once (single-threaded and with threads),
 * makespans in a deterministic discrete-event simulation, the FNN learning relative speeds, fault
 * recovery, policy names. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stream/sched.h"

#define MAXW 8
static const lwt_balance all_policies[] = {LWT_BALANCE_STATIC, LWT_BALANCE_WEIGHTED, LWT_BALANCE_QUEUE,
                                           LWT_BALANCE_FNN};

/* ---- discrete-event simulation: no threads, a simulated clock ---- */

typedef struct sim {
    int nw;
    const double *speed;  /* chunks per time unit of each worker */
    int fail_worker;      /* this worker fails on its fail_at-th chunk (1-based); -1: none */
    int fail_at;
    long failed_chunk;    /* out: the chunk it failed on, or -1 */
    int *handed;          /* out: per chunk, times next() returned it */
    int *finished;        /* out: per chunk, times done() was called for it */
    long runs;            /* out: contiguous runs handed out, summed over workers */
    double end[MAXW];     /* out: when each worker finished its last chunk (0: it finished none) */
} sim;

/* nw workers at these speeds, none of them failing */
static sim sim_of(int nw, const double *speed, int *handed, int *finished)
{
    return (sim){.nw = nw, .speed = speed, .fail_worker = -1, .failed_chunk = -1, .handed = handed, .finished = finished};
}

/* One set of n chunks on scheduler s. Idle workers ask next() again after every event, which is
 * what lwt_sched_wait() gives a threaded engine. Returns the makespan in time units. */
static double sim_set(lwt_sched *s, sim *m, long n)
{
    double now = 0.0, finish[MAXW];
    long cur[MAXW], last[MAXW];
    int got[MAXW] = {0}, dead[MAXW] = {0};
    CHECK(lwt_sched_begin(s, n) == 0, "begin(%ld)", n);
    for (int w = 0; w < m->nw; w++)
        cur[w] = last[w] = -1;
    m->failed_chunk = -1;
    m->runs = 0;
    memset(m->end, 0, sizeof m->end);
    for (;;) {
        for (int w = 0; w < m->nw; w++) {
            if (cur[w] >= 0)
                continue;
            long c = lwt_sched_next(s, w);
            if (dead[w] || c < 0) {
                CHECK(c == -1, "retired or idle worker %d got chunk %ld", w, c);
                continue;
            }
            CHECK(c < n, "chunk %ld out of range %ld", c, n);
            if (c >= n)
                return -1.0;
            m->handed[c]++;
            m->runs += c != last[w] + 1 || last[w] < 0;
            cur[w] = last[w] = c;
            finish[w] = now + 1.0 / m->speed[w];
            got[w]++;
        }
        int e = -1; /* the next worker to finish; ties go to the lowest index */
        for (int w = 0; w < m->nw; w++)
            if (cur[w] >= 0 && (e < 0 || finish[w] < finish[e]))
                e = w;
        if (e < 0)
            break;
        now = finish[e];
        if (e == m->fail_worker && got[e] == m->fail_at && !dead[e]) {
            m->failed_chunk = cur[e];
            dead[e] = 1;
            lwt_sched_failed(s, e, cur[e]);
        } else {
            /* busier workers report higher occupancy: a slow worker is saturated */
            double uf = m->speed[e] < 0.5 ? 0.9 : 0.6;
            lwt_sched_done(s, e, cur[e], 1.0 / m->speed[e], uf, 0.4);
            m->finished[cur[e]]++;
            m->end[e] = now;
        }
        cur[e] = -1;
    }
    return now;
}

/* every chunk handed out and finished exactly once, the failed one handed out once more */
static int exactly_once(const sim *m, long n)
{
    int bad = 0;
    for (long c = 0; c < n; c++) {
        int want = c == m->failed_chunk ? 2 : 1;
        if (m->handed[c] != want || m->finished[c] != 1)
            bad++;
    }
    return bad == 0;
}

static lwt_sched *make(lwt_balance p, int nw, const lwt_worker_profile *prof)
{
    lwt_sched *s = NULL;
    CHECK(lwt_sched_create(p, nw, prof, &s) == 0 && s, "create %s nw=%d", lwt_balance_name(p), nw);
    return s;
}

/* profiles whose weights and FNN inputs follow the given speeds */
static void profiles_for(lwt_worker_profile *prof, const double *speed, int nw)
{
    for (int w = 0; w < nw; w++)
        prof[w] = (lwt_worker_profile){.gflops = 1000 * speed[w], .mem_gib = 80, .parallel = 10000 * speed[w],
                                       .mem_gbs = 200 * speed[w], .bus_gbs = 50 * speed[w]};
}

static void check_stats(lwt_sched *s, int nw, long n, const char *what)
{
    long done[MAXW];
    double share[MAXW], sum = 0.0;
    long total = 0;
    lwt_sched_stats(s, done, share);
    for (int w = 0; w < nw; w++) {
        total += done[w];
        sum += share[w];
        CHECK(share[w] >= 0.0 && share[w] <= 1.0, "%s: share[%d] = %g", what, w, share[w]);
    }
    CHECK(total == n, "%s: done %ld of %ld", what, total, n);
    CHECK(fabs(sum - 1.0) < 1e-9, "%s: shares sum to %.12f", what, sum);
}

/* (a) single-threaded: every policy, 1..5 workers, 0..200 chunks, one scheduler reused over all
 * sizes (so the FNN carries its learning from set to set) */
static void test_exactly_once_sim(void)
{
    const double speed[5] = {1.0, 0.5, 1.0, 0.25, 0.8};
    lwt_worker_profile prof[5];
    profiles_for(prof, speed, 5);
    int handed[200], finished[200];
    for (size_t p = 0; p < 4; p++)
        for (int nw = 1; nw <= 5; nw++) {
            lwt_sched *s = make(all_policies[p], nw, prof);
            if (!s)
                continue;
            int bad = 0;
            for (long n = 0; n <= 200; n++) {
                memset(handed, 0, sizeof handed);
                memset(finished, 0, sizeof finished);
                sim m = sim_of(nw, speed, handed, finished);
                sim_set(s, &m, n);
                bad += !exactly_once(&m, n);
                if (n == 200)
                    check_stats(s, nw, n, lwt_balance_name(all_policies[p]));
            }
            CHECK(bad == 0, "%s nw=%d: %d sets without exactly-once", lwt_balance_name(all_policies[p]), nw, bad);
            lwt_sched_destroy(s);
        }
}

/* ---- real threads ---- */

typedef struct thread_run {
    lwt_sched *s;
    int worker;
    int fail_at; /* fail on this chunk count (1-based); 0: never */
    atomic_int *handed;
    atomic_int *finished;
    atomic_long *failed_chunk;
    double sec;  /* busy seconds it reports per chunk */
} thread_run;

static void spin(int units)
{
    volatile double x = 0.0;
    for (int i = 0; i < units * 2000; i++)
        x += 1e-9 * i;
}

static void *worker_main(void *arg)
{
    thread_run *t = arg;
    for (int got = 0;;) {
        long c = lwt_sched_next(t->s, t->worker);
        if (c < 0) {
            if (lwt_sched_wait(t->s, t->worker) == 1)
                continue;
            break;
        }
        atomic_fetch_add(&t->handed[c], 1);
        spin(1 + t->worker);
        if (++got == t->fail_at) {
            atomic_store(t->failed_chunk, c);
            lwt_sched_failed(t->s, t->worker, c);
            break;
        }
        atomic_fetch_add(&t->finished[c], 1);
        lwt_sched_done(t->s, t->worker, c, t->sec, 0.5, 0.5);
    }
    return NULL;
}

/* run one set with nw threads; worker fail_worker fails at its 3rd chunk. Returns the number of
 * chunks not handed out / finished as required. */
static int threaded_set(lwt_balance p, int nw, long n, int fail_worker)
{
    lwt_sched *s = make(p, nw, NULL);
    if (!s)
        return 1;
    atomic_int *handed = calloc((size_t)n + 1, sizeof *handed);
    atomic_int *finished = calloc((size_t)n + 1, sizeof *finished);
    atomic_long failed_chunk = -1;
    pthread_t th[MAXW];
    thread_run run[MAXW];
    CHECK(lwt_sched_begin(s, n) == 0, "begin");
    for (int w = 0; w < nw; w++) {
        run[w] = (thread_run){s, w, w == fail_worker ? 3 : 0, handed, finished, &failed_chunk, 1e-3 * (1 + w)};
        CHECK(pthread_create(&th[w], NULL, worker_main, &run[w]) == 0, "pthread_create");
    }
    for (int w = 0; w < nw; w++)
        pthread_join(th[w], NULL);
    int bad = 0;
    long fc = atomic_load(&failed_chunk);
    for (long c = 0; c < n; c++)
        bad += atomic_load(&handed[c]) != (c == fc ? 2 : 1) || atomic_load(&finished[c]) != 1;
    if (fc < 0 || fail_worker < 0)
        check_stats(s, nw, n, "threads");
    free(handed);
    free(finished);
    lwt_sched_destroy(s);
    return bad;
}

static void test_exactly_once_threads(void)
{
    const long sizes[] = {0, 1, 3, 7, 64, 200};
    for (size_t p = 0; p < 4; p++)
        for (int nw = 1; nw <= 5; nw++)
            for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
                int bad = threaded_set(all_policies[p], nw, sizes[i], -1);
                CHECK(bad == 0, "threads %s nw=%d n=%ld: %d chunks wrong", lwt_balance_name(all_policies[p]), nw,
                      sizes[i], bad);
            }
    for (size_t p = 0; p < 4; p++)
        for (int rep = 0; rep < 5; rep++) {
            int bad = threaded_set(all_policies[p], 4, 200, 1);
            CHECK(bad == 0, "threads %s with a failing worker: %d chunks wrong", lwt_balance_name(all_policies[p]), bad);
        }
}

/* ---- (b) makespans ---- */

static double ideal_makespan(const double *speed, int nw, long n)
{
    double total = 0.0, fastest = 0.0;
    for (int w = 0; w < nw; w++) {
        total += speed[w];
        fastest = speed[w] > fastest ? speed[w] : fastest;
    }
    return (double)n / total + 1.0 / fastest; /* plus one chunk of granularity */
}

/* makespan of set number `sets` (1 = a fresh scheduler's first set) */
static double makespan(lwt_balance p, const double *speed, int nw, long n, const lwt_worker_profile *prof, int sets,
                       long *runs)
{
    lwt_sched *s = make(p, nw, prof);
    int *handed = calloc((size_t)n, sizeof *handed), *finished = calloc((size_t)n, sizeof *finished);
    double t = -1.0;
    for (int k = 0; s && k < sets; k++) {
        memset(handed, 0, (size_t)n * sizeof *handed);
        memset(finished, 0, (size_t)n * sizeof *finished);
        sim m = sim_of(nw, speed, handed, finished);
        t = sim_set(s, &m, n);
        *runs = m.runs;
        CHECK(exactly_once(&m, n), "%s: makespan run not exactly once", lwt_balance_name(p));
    }
    free(handed);
    free(finished);
    lwt_sched_destroy(s);
    return t;
}

typedef struct scenario {
    const char *name;
    double speed[4];
    int truthful_profiles; /* profiles follow the speeds (else all workers look identical) */
} scenario;

static void test_makespans(void)
{
    const scenario sc[] = {
        {"equal", {1, 1, 1, 1}, 0},
        {"one 4x slower", {1, 1, 1, 0.25}, 0},
        {"CPU 20x slower", {1, 1, 1, 0.05}, 0},
        {"one 4x slower, true profiles", {1, 1, 1, 0.25}, 1},
        {"CPU 20x slower, true profiles", {1, 1, 1, 0.05}, 1},
    };
    const long n = 400;
    for (size_t i = 0; i < sizeof sc / sizeof *sc; i++) {
        lwt_worker_profile prof[4];
        profiles_for(prof, sc[i].speed, 4);
        const lwt_worker_profile *pp = sc[i].truthful_profiles ? prof : NULL;
        int hetero = sc[i].speed[3] != 1.0;
        double ideal = ideal_makespan(sc[i].speed, 4, n);
        printf("  %-30s ideal %7.1f:", sc[i].name, ideal);
        for (size_t p = 0; p < 4; p++) {
            lwt_balance b = all_policies[p];
            long runs1 = 0, runs3 = 0;
            double t1 = makespan(b, sc[i].speed, 4, n, pp, 1, &runs1), t3 = makespan(b, sc[i].speed, 4, n, pp, 3, &runs3);
            printf("  %s %.1f/%ld", lwt_balance_name(b), t1, runs1);
            if (b == LWT_BALANCE_FNN) {
                printf(" (3rd set %.1f/%ld)", t3, runs3);
                /* the point of groups: a worker streams long contiguous stretches, not every 4th chunk */
                CHECK(runs3 <= n / 8, "%s fnn: %ld contiguous runs for %ld chunks", sc[i].name, runs3, n);
            }
            int balanced = b == LWT_BALANCE_QUEUE || b == LWT_BALANCE_FNN || !hetero ||
                           (b == LWT_BALANCE_WEIGHTED && sc[i].truthful_profiles);
            if (balanced) {
                CHECK(t1 <= 1.10 * ideal, "%s %s: makespan %.1f > 1.1 x ideal %.1f", sc[i].name,
                      lwt_balance_name(b), t1, ideal);
                CHECK(t3 <= 1.10 * ideal, "%s %s: 3rd-set makespan %.1f > 1.1 x ideal %.1f", sc[i].name,
                      lwt_balance_name(b), t3, ideal);
            }
            if (hetero && b == LWT_BALANCE_STATIC)
                CHECK(t1 > 1.5 * ideal, "%s static: makespan %.1f not > 1.5 x ideal %.1f", sc[i].name, t1, ideal);
        }
        printf("\n");
    }
}

/* ---- (c) the FNN learns the relative speeds ---- */

static void fnn_learns(const char *name, const double *speed, const lwt_worker_profile *prof)
{
    lwt_sched *s = make(LWT_BALANCE_FNN, 4, prof);
    if (!s)
        return;
    int handed[200], finished[200];
    double share[4], truth = speed[3] / (speed[0] + speed[1] + speed[2] + speed[3]);
    lwt_sched_stats(s, NULL, share);
    printf("  fnn %-40s slow share: true %.4f, before %.4f", name, truth, share[3]);
    for (int set = 0; set < 5; set++) {
        memset(handed, 0, sizeof handed);
        memset(finished, 0, sizeof finished);
        sim m = sim_of(4, speed, handed, finished);
        sim_set(s, &m, 200);
        CHECK(exactly_once(&m, 200), "%s: set %d not exactly once", name, set);
        lwt_sched_stats(s, NULL, share);
        printf(", %.4f", share[3]);
    }
    printf("\n");
    CHECK(fabs(share[3] - truth) <= 0.30 * truth, "%s: slow worker's share %.4f, true %.4f", name, share[3], truth);
    CHECK(fabs(share[0] - share[1]) <= 0.05 * share[0], "%s: equal workers' shares %.4f %.4f", name, share[0], share[1]);
    lwt_sched_destroy(s);
}

static void test_fnn_learns(void)
{
    const double slow4[4] = {1, 1, 1, 0.25}, cpu20[4] = {1, 1, 1, 0.05};
    lwt_worker_profile lying[4], gpus_and_cpu[4];
    /* the slow worker's profile claims it is 4x faster than the others */
    const double claim[4] = {1, 1, 1, 4};
    profiles_for(lying, claim, 4);
    /* three H200-like GPUs and a CPU with more memory, fewer flops, similar link */
    for (int w = 0; w < 3; w++)
        gpus_and_cpu[w] = (lwt_worker_profile){67000, 141, 16896, 4800, 55};
    gpus_and_cpu[3] = (lwt_worker_profile){3000, 512, 64, 300, 20};
    fnn_learns("identical profiles, one 4x slower", slow4, NULL);
    fnn_learns("lying profiles, one 4x slower", slow4, lying);
    fnn_learns("identical profiles, CPU 20x slower", cpu20, NULL);
    fnn_learns("GPU/CPU profiles, CPU 20x slower", cpu20, gpus_and_cpu);
}

/* ---- (d) faults ---- */

static void test_fault_sim(void)
{
    const double speed[4] = {1, 0.7, 1, 0.25};
    lwt_worker_profile prof[4];
    profiles_for(prof, speed, 4);
    int handed[200], finished[200];
    for (size_t p = 0; p < 4; p++) {
        const char *name = lwt_balance_name(all_policies[p]);
        lwt_sched *s = make(all_policies[p], 4, prof);
        if (!s)
            continue;
        memset(handed, 0, sizeof handed);
        memset(finished, 0, sizeof finished);
        sim m = sim_of(4, speed, handed, finished);
        m.fail_worker = 1;
        m.fail_at = 3;
        sim_set(s, &m, 200);
        CHECK(m.failed_chunk >= 0, "%s: worker 1 never reached its 3rd chunk", name);
        CHECK(exactly_once(&m, 200), "%s: fault recovery not exactly once", name);
        long done[4];
        double share[4];
        lwt_sched_stats(s, done, share);
        CHECK(done[1] == 2 && share[1] == 0.0, "%s: retired worker: done %ld share %g", name, done[1], share[1]);
        /* the next set runs on the three live workers */
        memset(handed, 0, sizeof handed);
        memset(finished, 0, sizeof finished);
        sim m2 = sim_of(4, speed, handed, finished);
        sim_set(s, &m2, 200);
        lwt_sched_stats(s, done, NULL);
        CHECK(exactly_once(&m2, 200) && done[1] == 0, "%s: set after the fault", name);
        CHECK(lwt_sched_next(s, 1) == -1 && lwt_sched_wait(s, 1) == 0, "%s: retired worker", name);
        lwt_sched_destroy(s);
    }
}

/* The late-chunk guard at a set's start: a worker 50x slower than the other, so slow that its one
 * chunk would end after the other has done all 32 (a CPU worker next to a GPU on a bus-bound
 * transform). Queue judges by the profiles until it has timings, so the slow worker takes nothing
 * from the first set on; in the FNN's first set the profiles (which it maps to a share of about a
 * quarter) let it take one chunk. Once both have been timed it takes none under either policy,
 * and the makespan is the fast worker's alone. When the fast worker fails, the slow one takes
 * everything that is left (declined chunks always have a taker). */
static void test_start_guard(lwt_balance policy)
{
    const double speed[2] = {1, 0.02};
    lwt_worker_profile prof[2];
    profiles_for(prof, speed, 2);
    int handed[32], finished[32];
    for (int fail = 0; fail < 2; fail++) {
        lwt_sched *s = make(policy, 2, prof);
        if (!s)
            return;
        for (int set = 0; set < 3; set++) {
            memset(handed, 0, sizeof handed);
            memset(finished, 0, sizeof finished);
            sim m = sim_of(2, speed, handed, finished);
            m.fail_worker = fail && set == 0 ? 0 : -1;
            m.fail_at = 5;
            const double t = sim_set(s, &m, 32);
            long done[2];
            lwt_sched_stats(s, done, NULL);
            CHECK(exactly_once(&m, 32), "start guard, set %d%s: not exactly once", set, fail ? " (fast fails)" : "");
            const char *name = lwt_balance_name(policy);
            if (!fail && (set > 0 || policy == LWT_BALANCE_QUEUE))
                CHECK(done[1] == 0 && t <= 32.0 + 1e-9, "%s start guard, set %d: the slow worker took %ld chunks, "
                      "makespan %.1f (the fast one alone: 32)", name, set, done[1], t);
            else if (fail && set == 0)
                CHECK(m.failed_chunk >= 0 && done[1] == 32 - 4, "%s start guard: after the fast worker failed the "
                      "slow one finished %ld chunks (expected 28; fast %ld, makespan %.1f)", name, done[1], done[0], t);
        }
        lwt_sched_destroy(s);
    }
}

/* ---- (e) the late-chunk guard: two GPUs and a CPU ----
 * Issue 23 item 8, measured on 2x H100 (16384^2 CDF 9/7, 4 levels, pinned host data, 64 MiB chunks:
 * a handful of chunks per level): queue took 46.8 ms where FNN took 16.1 and the two GPUs alone
 * 16.0; the CPU took one chunk and finished last. Here a chunk takes 1 time unit on a GPU and 25 on
 * the CPU (worker 2), 4 to 16 chunks per set. */

typedef struct set_result {
    double t;       /* makespan */
    long cpu;       /* chunks the CPU finished */
    double cpu_end; /* when it finished its last one */
} set_result;

/* sets 1..3 of one scheduler */
static void gpus_cpu_sets(lwt_balance p, const double *speed, const lwt_worker_profile *prof, long n, set_result r[3])
{
    lwt_sched *s = make(p, 3, prof);
    int handed[16], finished[16];
    for (int k = 0; s && k < 3; k++) {
        memset(handed, 0, sizeof handed);
        memset(finished, 0, sizeof finished);
        sim m = sim_of(3, speed, handed, finished);
        r[k].t = sim_set(s, &m, n);
        CHECK(exactly_once(&m, n), "%s, %ld chunks, set %d: not exactly once", lwt_balance_name(p), n, k + 1);
        long done[3];
        lwt_sched_stats(s, done, NULL);
        r[k].cpu = done[2];
        r[k].cpu_end = m.end[2];
    }
    lwt_sched_destroy(s);
}

/* Where the scheduler knows the speeds (the queue from true profiles, both from the timings of an
 * earlier set), neither dynamic policy lets the CPU finish last with a chunk when the GPUs alone
 * would have been faster, and the queue is within 1.15x of the better of a static split over the
 * GPUs alone and the FNN. (In its first set the FNN judges by its prediction, which blends the
 * profile with the hardware inputs and rates the CPU at about a third of a GPU.) Without any information
 * (identical profiles, first set) the queue hands out as it always did: one chunk to every worker
 * first, so the CPU takes one. */
static void test_gpus_and_cpu(void)
{
    const double speed[3] = {1, 1, 0.04};
    lwt_worker_profile prof[3];
    profiles_for(prof, speed, 3);
    printf("  chunks  GPUs alone  true profiles: fnn queue   identical profiles, sets 1/2/3: fnn; queue\n");
    for (long n = 4; n <= 16; n++) {
        long runs;
        const double gpus = makespan(LWT_BALANCE_STATIC, speed, 2, n, NULL, 1, &runs);
        set_result fnn_true[3], queue_true[3], fnn_same[3], queue_same[3];
        gpus_cpu_sets(LWT_BALANCE_FNN, speed, prof, n, fnn_true);
        gpus_cpu_sets(LWT_BALANCE_QUEUE, speed, prof, n, queue_true);
        gpus_cpu_sets(LWT_BALANCE_FNN, speed, NULL, n, fnn_same);
        gpus_cpu_sets(LWT_BALANCE_QUEUE, speed, NULL, n, queue_same);
        printf("  %6ld  %10.1f  %17.1f %5.1f   %6.1f/%.1f/%.1f; %.1f/%.1f/%.1f\n", n, gpus, fnn_true[0].t,
               queue_true[0].t, fnn_same[0].t, fnn_same[1].t, fnn_same[2].t, queue_same[0].t, queue_same[1].t,
               queue_same[2].t);
        CHECK(queue_same[0].cpu == 1, "%ld chunks, no information: the queue's CPU took %ld chunks, not 1 as before",
              n, queue_same[0].cpu);
        for (int k = 0; k < 3; k++) {
            const struct {
                const char *what;
                const set_result *r, *fnn;
                int informed;
            } c[4] = {{"fnn, true profiles", &fnn_true[k], &fnn_true[k], k > 0},
                      {"queue, true profiles", &queue_true[k], &fnn_true[k], 1},
                      {"fnn, identical profiles", &fnn_same[k], &fnn_same[k], k > 0},
                      {"queue, identical profiles", &queue_same[k], &fnn_same[k], k > 0}};
            for (int i = 0; i < 4; i++) {
                if (!c[i].informed)
                    continue;
                const set_result *r = c[i].r;
                const int late = r->cpu > 0 && r->cpu_end >= r->t && gpus < r->t;
                CHECK(!late, "%s, %ld chunks, set %d: the CPU finished last at %.1f with %ld chunks, the GPUs alone "
                      "take %.1f", c[i].what, n, k + 1, r->cpu_end, r->cpu, gpus);
                const double best = c[i].fnn->t < gpus ? c[i].fnn->t : gpus;
                CHECK(r->t <= 1.15 * best, "%s, %ld chunks, set %d: makespan %.1f > 1.15 x %.1f (best of the GPUs "
                      "alone and fnn)", c[i].what, n, k + 1, r->t, best);
            }
        }
    }
}

/* With threads: a worker timed at 1000x the other's busy time declines every chunk of the next
 * set and waits (lwt_sched_wait); when the fast one fails on its 3rd chunk, the slow one must
 * still be there and take everything left, however the two threads interleave. */
static void test_guard_threads(void)
{
    enum { N = 64, REPS = 200 };
    int bad = 0;
    for (int rep = 0; rep < REPS; rep++) {
        lwt_sched *s = make(LWT_BALANCE_QUEUE, 2, NULL);
        if (!s)
            return;
        /* a first set without threads, so that the timings arrive in a known order */
        lwt_sched_begin(s, 2);
        const long a = lwt_sched_next(s, 0), b = lwt_sched_next(s, 1);
        lwt_sched_done(s, 0, a, 1e-3, 0.5, 0.5);
        lwt_sched_done(s, 1, b, 1.0, 0.5, 0.5);
        atomic_int handed[N], finished[N];
        atomic_long failed_chunk = -1;
        for (int c = 0; c < N; c++) {
            atomic_store(&handed[c], 0);
            atomic_store(&finished[c], 0);
        }
        CHECK(lwt_sched_begin(s, N) == 0, "begin");
        pthread_t th[2];
        thread_run run[2];
        for (int w = 0; w < 2; w++) {
            run[w] = (thread_run){s, w, w == 0 ? 3 : 0, handed, finished, &failed_chunk, w == 0 ? 1e-3 : 1.0};
            CHECK(pthread_create(&th[w], NULL, worker_main, &run[w]) == 0, "pthread_create");
        }
        for (int w = 0; w < 2; w++)
            pthread_join(th[w], NULL);
        const long fc = atomic_load(&failed_chunk);
        for (int c = 0; c < N; c++)
            bad += atomic_load(&handed[c]) != (c == fc ? 2 : 1) || atomic_load(&finished[c]) != 1;
        long done[2];
        lwt_sched_stats(s, done, NULL);
        bad += fc < 0 || done[1] != N - 2;
        lwt_sched_destroy(s);
    }
    CHECK(bad == 0, "threads, a declining worker and a failing one: %d chunks or counts wrong in %d runs", bad, REPS);
}

static void test_all_fail(void)
{
    for (size_t p = 0; p < 4; p++) {
        lwt_sched *s = make(all_policies[p], 3, NULL);
        if (!s)
            continue;
        lwt_sched_begin(s, 10);
        long c[3];
        for (int w = 0; w < 3; w++)
            c[w] = lwt_sched_next(s, w);
        CHECK(c[0] >= 0 && c[1] >= 0 && c[2] >= 0, "%s: first chunks", lwt_balance_name(all_policies[p]));
        CHECK(lwt_sched_failed(s, 0, c[0]) == 2, "failed -> 2 live");
        CHECK(lwt_sched_failed(s, 1, c[1]) == 1, "failed -> 1 live");
        CHECK(lwt_sched_failed(s, 2, c[2]) == -1, "failed -> none live");
        CHECK(lwt_sched_failed(s, 2, c[2]) == -1, "failing twice");
        for (int w = 0; w < 3; w++)
            CHECK(lwt_sched_next(s, w) == -1 && lwt_sched_wait(s, w) == 0, "dead worker %d", w);
        lwt_sched_destroy(s);
    }
}

/* ---- wait() without threads, and argument checks ---- */

static void test_wait_and_args(void)
{
    lwt_sched *s = make(LWT_BALANCE_STATIC, 2, NULL);
    if (!s)
        return;
    lwt_sched_begin(s, 2);
    long a = lwt_sched_next(s, 0), b = lwt_sched_next(s, 1);
    CHECK(a == 0 && b == 1, "static split of 2: %ld %ld", a, b);
    CHECK(lwt_sched_next(s, 0) == -1 && lwt_sched_wait(s, 0) == -1, "wait with own chunk in flight");
    lwt_sched_done(s, 0, a, 1.0, 0, 0);
    lwt_sched_done(s, 0, b, 1.0, 0, 0); /* not worker 0's chunk: ignored */
    long done[2];
    lwt_sched_stats(s, done, NULL);
    CHECK(done[0] == 1 && done[1] == 0, "done for a foreign chunk ignored");
    lwt_sched_failed(s, 1, b);
    CHECK(lwt_sched_wait(s, 0) == 1 && lwt_sched_next(s, 0) == 1, "failed chunk goes to the live worker");
    lwt_sched_done(s, 0, 1, 1.0, 0, 0);
    CHECK(lwt_sched_next(s, 0) == -1 && lwt_sched_wait(s, 0) == 0, "set over");
    CHECK(lwt_sched_next(s, 7) == -1 && lwt_sched_next(s, -1) == -1, "bad worker index");
    CHECK(lwt_sched_begin(s, -5) == -1 && lwt_sched_next(s, 0) == -1, "negative chunk count");
    lwt_sched_destroy(s);
    lwt_sched_destroy(NULL);
    lwt_sched *t = NULL;
    CHECK(lwt_sched_create(LWT_BALANCE_FNN, 0, NULL, &t) == -1 && t == NULL, "zero workers");
    CHECK(lwt_sched_create((lwt_balance)9, 2, NULL, &t) == -1 && t == NULL, "bad policy");
}

/* ---- (e) names ---- */

static void test_names(void)
{
    for (size_t p = 0; p < 4; p++) {
        lwt_balance b = (lwt_balance)-1;
        CHECK(lwt_balance_parse(lwt_balance_name(all_policies[p]), &b) == 0 && b == all_policies[p], "round trip %zu", p);
    }
    lwt_balance b = LWT_BALANCE_QUEUE;
    CHECK(lwt_balance_parse("bogus", &b) == -1 && b == LWT_BALANCE_QUEUE, "bogus accepted");
    CHECK(lwt_balance_parse(NULL, &b) == -1 && lwt_balance_parse("", &b) == -1 && lwt_balance_parse("FNN", &b) == -1,
          "NULL, empty or upper case accepted");
    CHECK(strcmp(lwt_balance_name(LWT_BALANCE_FNN), "fnn") == 0 && strcmp(lwt_balance_name((lwt_balance)42), "unknown") == 0,
          "names");
}

int main(void)
{
    test_names();
    test_wait_and_args();
    test_exactly_once_sim();
    test_exactly_once_threads();
    printf("makespan/contiguous runs, 400 chunks, 4 workers (time units; a chunk takes 1 / speed):\n");
    test_makespans();
    printf("FNN share of the slow worker, before and after each of 5 sets:\n");
    test_fnn_learns();
    test_fault_sim();
    test_start_guard(LWT_BALANCE_QUEUE);
    test_start_guard(LWT_BALANCE_FNN);
    printf("two GPUs (a chunk: 1 time unit) and a CPU (25), a few chunks per set (issue 23 item 8):\n");
    test_gpus_and_cpu();
    test_guard_threads();
    test_all_fail();
    return finish("test_sched");
}
