/* sched.c - the chunk scheduler of the streaming engine: static, weighted, queue and seed 000's
 * FNN-based data-oriented dynamic load balancing (section 5.2 of the seed). Every choice the seed
 * leaves open is listed, with its reason, in docs/STREAMING.md ("FNN: choices the seed leaves
 * open"); the comments here say what the code does with them. */
#include "sched.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- FNN constants (docs/STREAMING.md lists them and why) ---- */
#define FNN_STATIC 5                  /* F, M, P, MS, BC */
#define FNN_IN 8                      /* + UF, UM, LCP */
#define FNN_RULES (1 << FNN_IN)       /* one rule per high/low combination of the 8 inputs */
#define FNN_LCP (FNN_IN - 1)          /* bit of the LCP input in a rule index */
#define SIGMOID_SLOPE 10.0            /* static membership: high(x) = 1/(1+exp(-10(x-0.5))) */
#define SOFTPLUS_A 5.0                /* eq. 24 of the seed */
#define SOFTPLUS_B (-3.0)
#define LEARN_RATE 0.5                /* NLMS step: each update removes half of the error */
#define EMA_ALPHA 0.25                /* smoothing of seconds per chunk, UF and UM */
#define CP_FLOOR 1e-3                 /* least relative capability of a live worker */
#define GROUP_FRACTION 0.5            /* a group is CP * (unreserved chunks) * 0.5 */
#define FLOP_PER_BYTE 2.0             /* lifting work per byte, for the weight's compute term */

enum { CHUNK_FREE = -1, CHUNK_DONE = -2 }; /* state[c] >= 0: in flight on that worker */

typedef struct wstate {
    int live;
    long lo, hi;    /* chunks reserved for this worker and not started: [lo, hi) */
    long inflight;  /* chunks handed out and not yet done */
    long done;      /* chunks done in the current set */
    double weight;  /* capability weight from the profile (weighted split, FNN prior) */
    double split;   /* share of the split made at begin() (static, weighted) */
    double stat[FNN_STATIC]; /* F, M, P, MS, BC relative to the largest worker, in (0, 1] */
    /* FNN feedback */
    int measured;   /* sec holds a measurement of this set */
    int seen;       /* uf and um hold a measurement (any set) */
    double sec;     /* moving average of busy seconds per chunk in this set */
    double uf, um;  /* moving averages of the occupancy feedback */
    double lcp;     /* last observed relative capability (1 = fastest), the LCP input */
    double cp;      /* predicted share CP (sums to 1 over live workers) */
} wstate;

struct lwt_sched {
    lwt_balance policy;
    int nw, nlive;
    wstate *w;
    long n;                  /* chunks in the current set */
    long cap;                /* allocated length of state and rec */
    int *state;              /* per chunk: CHUNK_FREE, CHUNK_DONE or the worker running it */
    long *rec;               /* chunks handed back by failures, not yet handed out again */
    long nrec;
    long pool_lo, pool_hi;   /* chunks reserved for nobody yet (queue, fnn) */
    long unstarted;          /* chunks in state CHUNK_FREE: pool + reserved + rec */
    double rule_w[FNN_RULES]; /* consequents: degree to which each rule says "CP is high" */
    double *sec_est, *free_at; /* per worker, scratch of the late-chunk guard */
    pthread_mutex_t lock;
    pthread_cond_t cond;     /* signalled when a chunk finishes or comes back */
    int waiters;
};

/* ---------------------------------------------------------------------------------------------
 * Weights and memberships
 * ------------------------------------------------------------------------------------------- */

/* The engine moves every byte over the host link once, through device memory a few times, and
 * does about FLOP_PER_BYTE of arithmetic on it; with the three overlapped, the slowest of the
 * three rates bounds the throughput. Unknown (0) fields are left out. */
static double profile_weight(const lwt_worker_profile *p)
{
    double rates[3] = {p->mem_gbs, p->bus_gbs, p->gflops / FLOP_PER_BYTE};
    double w = 0.0;
    for (int i = 0; i < 3; i++)
        if (rates[i] > 0.0 && isfinite(rates[i]) && (w == 0.0 || rates[i] < w))
            w = rates[i];
    return w > 0.0 ? w : 1.0;
}

static double clamp01(double x)
{
    return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

/* membership of "high" for a static input (already relative to the largest worker) */
static double sigmoid_high(double x)
{
    return 1.0 / (1.0 + exp(-SIGMOID_SLOPE * (x - 0.5)));
}

/* eq. 24 of the seed: ln(1 + e^(ax+b)) / ln(1 + e^(a+b)), x in [0, 1]; "high" for the dynamic sets */
static double softplus_high(double x)
{
    return log1p(exp(SOFTPLUS_A * clamp01(x) + SOFTPLUS_B)) / log1p(exp(SOFTPLUS_A + SOFTPLUS_B));
}

/* the crisp x whose "high" membership is m: defuzzification onto the CP axis */
static double softplus_inverse(double m)
{
    double lo = softplus_high(0.0);
    if (m <= lo)
        return 0.0;
    if (m >= 1.0)
        return 1.0;
    double e = expm1(m * log1p(exp(SOFTPLUS_A + SOFTPLUS_B)));
    return clamp01((log(e) - SOFTPLUS_B) / SOFTPLUS_A);
}

/* ---------------------------------------------------------------------------------------------
 * The FNN predictor
 * ------------------------------------------------------------------------------------------- */

/* Layers 1-2: memberships of the 8 inputs, then the firing strength of every rule (product
 * t-norm; bit i of the rule index picks "high" for input i). Because low = 1 - high, the
 * strengths already sum to 1 and need no normalization layer. */
static void fnn_fire(const wstate *k, double phi[FNN_RULES])
{
    double high[FNN_IN];
    for (int i = 0; i < FNN_STATIC; i++)
        high[i] = sigmoid_high(k->stat[i]);
    high[5] = softplus_high(k->uf);
    high[6] = softplus_high(k->um);
    high[FNN_LCP] = softplus_high(k->lcp);
    phi[0] = 1.0;
    for (int i = 0, len = 1; i < FNN_IN; i++, len *= 2)
        for (int r = 0; r < len; r++) {
            phi[r + len] = phi[r] * high[i];
            phi[r] *= 1.0 - high[i];
        }
}

/* Layer 3: degree to which "CP is high" (weighted average of the rule consequents). */
static double fnn_output(const lwt_sched *s, const double phi[FNN_RULES])
{
    double m = 0.0;
    for (int r = 0; r < FNN_RULES; r++)
        m += phi[r] * s->rule_w[r];
    return m;
}

/* Layer 4: defuzzified relative capability of worker k (1 = as fast as the fastest). */
static double fnn_predict(const lwt_sched *s, const wstate *k)
{
    double phi[FNN_RULES];
    fnn_fire(k, phi);
    double rel = softplus_inverse(fnn_output(s, phi));
    return rel > CP_FLOOR ? rel : CP_FLOOR;
}

/* Back-propagation of the squared error (in membership space) to the rule consequents, with the
 * normalized-LMS step: the output moves LEARN_RATE of the way to the target at this input, and
 * the rules that fired hardest move most. */
static void fnn_train(lwt_sched *s, const wstate *k, double target_rel)
{
    double phi[FNN_RULES];
    fnn_fire(k, phi);
    double err = softplus_high(target_rel) - fnn_output(s, phi);
    double norm = 0.0;
    for (int r = 0; r < FNN_RULES; r++)
        norm += phi[r] * phi[r];
    if (norm <= 0.0)
        return;
    double step = LEARN_RATE * err / norm;
    for (int r = 0; r < FNN_RULES; r++)
        s->rule_w[r] += step * phi[r]; /* unbounded: see fnn_init_rules */
}

/* CP of every live worker from the predictor, normalized to sum to 1. */
static void fnn_refresh_cp(lwt_sched *s)
{
    double sum = 0.0;
    for (int i = 0; i < s->nw; i++) {
        wstate *k = &s->w[i];
        k->cp = k->live ? fnn_predict(s, k) : 0.0;
        sum += k->cp;
    }
    for (int i = 0; i < s->nw && sum > 0.0; i++)
        s->w[i].cp /= sum;
}

/* Starting consequents: half "trust the last observed capability" (rules with LCP high say CP is
 * high), half "trust the hardware" (the fraction of static inputs that are high). Before any
 * measurement LCP is the profile prior, so the first prediction is a blend of two priors; the
 * training then learns how far each is to be believed. Training leaves the consequents
 * unbounded: clamping them to [0, 1] pins the rules a slow worker fires at 0 long before its
 * output reaches the target (with LCP = 0.25 the "LCP high" rules alone already give the target
 * membership 0.075), and learning then crawls; the output is clamped before defuzzification. */
static void fnn_init_rules(lwt_sched *s)
{
    for (int r = 0; r < FNN_RULES; r++) {
        int nhigh = 0;
        for (int i = 0; i < FNN_STATIC; i++)
            nhigh += (r >> i) & 1;
        s->rule_w[r] = 0.5 * ((r >> FNN_LCP) & 1) + 0.5 * nhigh / FNN_STATIC;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Feedback
 * ------------------------------------------------------------------------------------------- */

static double ema(double old, double x, int have_old)
{
    return have_old ? (1.0 - EMA_ALPHA) * old + EMA_ALPHA * x : x;
}

/* busy seconds per chunk of the fastest live worker measured in this set */
static double fastest_sec(const lwt_sched *s)
{
    double best = 0.0;
    for (int i = 0; i < s->nw; i++) {
        const wstate *k = &s->w[i];
        if (k->live && k->measured && (best == 0.0 || k->sec < best))
            best = k->sec;
    }
    return best;
}

static int all_live_measured(const lwt_sched *s)
{
    for (int i = 0; i < s->nw; i++)
        if (s->w[i].live && !s->w[i].measured)
            return 0;
    return 1;
}

/* One finished chunk of worker k under a dynamic policy: update its timing and occupancy feedback
 * and its last observed relative capability LCP (the late-chunk guard's yardstick). The FNN also
 * trains on that observation (only once every live worker has a measurement of this set, so
 * "relative to the fastest" means the same for everyone), then predicts again. */
static void feedback(lwt_sched *s, wstate *k, double seconds, double uf, double um)
{
    if (!(seconds > 0.0) || !isfinite(seconds))
        return; /* no usable timing: keep the prediction */
    k->uf = ema(k->uf, clamp01(uf), k->seen);
    k->um = ema(k->um, clamp01(um), k->seen);
    k->seen = 1;
    k->sec = ema(k->sec, seconds, k->measured);
    k->measured = 1;
    double observed = fastest_sec(s) / k->sec;
    if (observed < CP_FLOOR)
        observed = CP_FLOOR;
    if (s->policy != LWT_BALANCE_FNN) {
        k->lcp = observed;
        return;
    }
    if (all_live_measured(s))
        fnn_train(s, k, observed); /* inputs still hold the previous LCP: predict next from last */
    k->lcp = observed;
    fnn_refresh_cp(s);
}

/* ---------------------------------------------------------------------------------------------
 * Picking chunks. Every pick_* returns a chunk or -1 and changes nothing unless take is set, so
 * lwt_sched_wait can ask "would next() succeed?" with the same code.
 * ------------------------------------------------------------------------------------------- */

static long pick_own(wstate *k, int take)
{
    if (k->lo >= k->hi)
        return -1;
    return take ? k->lo++ : k->lo;
}

static long pick_recovered(lwt_sched *s, int take)
{
    if (s->nrec == 0)
        return -1;
    return take ? s->rec[--s->nrec] : s->rec[s->nrec - 1];
}

static long pick_pool_one(lwt_sched *s, int take)
{
    if (s->pool_lo >= s->pool_hi)
        return -1;
    return take ? s->pool_lo++ : s->pool_lo;
}

/* Factoring: a group is CP * (unreserved chunks) * GROUP_FRACTION, at least 1, so groups shrink
 * as the set drains and a wrong prediction costs at most one late group. */
static long group_size(double cp, long avail)
{
    long g = (long)ceil(cp * (double)avail * GROUP_FRACTION);
    return g < 1 ? 1 : g > avail ? avail : g;
}

static long pick_new_group(lwt_sched *s, wstate *k, int take)
{
    if (s->pool_lo >= s->pool_hi)
        return -1;
    if (!take)
        return s->pool_lo;
    k->lo = s->pool_lo;
    k->hi = k->lo + group_size(k->cp, s->pool_hi - s->pool_lo);
    s->pool_lo = k->hi;
    return k->lo++;
}

/* Steal the last unstarted chunk of the worker that needs longest for its reserved chunks (count
 * over predicted capability): taking from the back leaves its front contiguous. */
static long pick_steal(lwt_sched *s, int self, int take)
{
    int victim = -1;
    double worst = -1.0;
    for (int i = 0; i < s->nw; i++) {
        const wstate *k = &s->w[i];
        if (i == self || !k->live || k->lo >= k->hi)
            continue;
        double t = (double)(k->hi - k->lo) / (k->cp > CP_FLOOR ? k->cp : CP_FLOOR);
        if (t > worst) {
            worst = t;
            victim = i;
        }
    }
    if (victim < 0)
        return -1;
    wstate *v = &s->w[victim];
    return take ? --v->hi : v->hi - 1;
}

/* ---------------------------------------------------------------------------------------------
 * The late-chunk guard of the dynamic policies (queue, FNN): no worker is given a chunk that it
 * would finish after the other live workers would have finished everything unstarted without it
 * (docs/STREAMING.md, "The late-chunk guard"). A CPU worker next to GPUs on a bus-bound transform
 * is the case: its one chunk can take longer than the whole set on the GPUs.
 * ------------------------------------------------------------------------------------------- */

/* What the guard believes of worker k before k is timed in this set: its relative capability
 * (1 = the most capable). Queue: the last observed one (LCP), whose prior is the profile weight
 * relative to the largest, so identical profiles and no timing mean "all equal". FNN: the same once
 * every live worker has been timed in some set (a streamer keeps that from call to call), else the
 * FNN's prediction CP, which is what it sizes its groups by. */
static double guard_capability(const lwt_sched *s, const wstate *k, int fnn_observed)
{
    return s->policy == LWT_BALANCE_FNN && !fnn_observed ? k->cp : k->lcp;
}

/* Seconds per chunk of worker i as the guard estimates them: its own average once timed in this
 * set; else the reference's (the fastest worker timed in this set) scaled by the ratio of their
 * capabilities; with nobody timed in this set, 1 / capability (a unit common to all workers, which
 * is all a comparison needs). */
static double guard_sec(const lwt_sched *s, int i, int ref, int fnn_observed)
{
    const wstate *k = &s->w[i];
    if (k->measured)
        return k->sec;
    const double ci = guard_capability(s, k, fnn_observed);
    if (ref < 0)
        return 1.0 / ci;
    return s->w[ref].sec * guard_capability(s, &s->w[ref], fnn_observed) / ci;
}

/* Would `self` finish a chunk it starts now later than the other live workers would finish all
 * the unstarted chunks (this one included) without it? Self's own chunks in flight are not
 * counted (a pipelined worker's next chunk overlaps them). The scheduler has no clock, so it
 * knows only how many chunks the others have in flight: the last of them counts as half done
 * (the expected remainder), the rest as whole chunks. The others take the unstarted chunks one
 * by one, each going to the one that would finish it first, until one would end no earlier than
 * self's chunk (then self takes it). Workers of equal speed never decline (the others cannot end
 * a chunk sooner than self), nor does the one with the least estimated seconds per chunk, and
 * every live worker asks again when a chunk finishes or fails (the engine's end-of-level barrier,
 * lwt_sched_wait), so a declined chunk always has a taker. */
static int finishes_late(lwt_sched *s, int self)
{
    int fnn_observed = 1, ref = -1;
    for (int i = 0; i < s->nw; i++) {
        const wstate *k = &s->w[i];
        if (!k->live)
            continue;
        fnn_observed &= k->seen;
        if (k->measured && (ref < 0 || k->sec < s->w[ref].sec))
            ref = i;
    }
    const double mine = guard_sec(s, self, ref, fnn_observed);
    int others = 0;
    for (int i = 0; i < s->nw; i++)
        if (i != self && s->w[i].live) {
            s->sec_est[i] = guard_sec(s, i, ref, fnn_observed);
            s->free_at[i] = s->w[i].inflight > 0 ? ((double)s->w[i].inflight - 0.5) * s->sec_est[i] : 0.0;
            others = 1;
        }
    if (!others)
        return 0;
    for (long u = 0; u < s->unstarted; u++) {
        int b = -1;
        for (int i = 0; i < s->nw; i++)
            if (i != self && s->w[i].live &&
                (b < 0 || s->free_at[i] + s->sec_est[i] < s->free_at[b] + s->sec_est[b]))
                b = i;
        s->free_at[b] += s->sec_est[b]; /* the chosen finishes never decrease: the last is the end */
        if (s->free_at[b] >= mine)
            return 0;
    }
    return 1;
}

static long pick(lwt_sched *s, int self, int take)
{
    wstate *me = &s->w[self];
    long c;
    if (!me->live)
        return -1;
    switch (s->policy) {
    case LWT_BALANCE_STATIC:
    case LWT_BALANCE_WEIGHTED: /* pure: own share, then only what failures handed back */
        if ((c = pick_own(me, take)) >= 0)
            return c;
        return pick_recovered(s, take);
    case LWT_BALANCE_QUEUE:
        if (finishes_late(s, self))
            return -1;
        if ((c = pick_recovered(s, take)) >= 0)
            return c;
        return pick_pool_one(s, take);
    case LWT_BALANCE_FNN:
        if (finishes_late(s, self))
            return -1;
        if ((c = pick_own(me, take)) >= 0 || (c = pick_recovered(s, take)) >= 0 ||
            (c = pick_new_group(s, me, take)) >= 0)
            return c;
        return pick_steal(s, self, take);
    }
    return -1;
}

static void hand_out(lwt_sched *s, int self, long c)
{
    s->state[c] = self;
    s->w[self].inflight++;
    s->unstarted--;
}

/* could anything still come to `self` in this set? (another live worker holds chunks that may
 * finish, fail and come back, or reserved chunks that may come back with a failure, or unstarted
 * chunks are left to the other live workers by the late-chunk guard: one of them may yet fail) */
static int others_outstanding(const lwt_sched *s, int self)
{
    int other_live = 0;
    for (int i = 0; i < s->nw; i++) {
        const wstate *k = &s->w[i];
        if (i == self || !k->live)
            continue;
        if (k->inflight > 0 || k->lo < k->hi)
            return 1;
        other_live = 1;
    }
    return other_live && s->unstarted > 0;
}

static void wake(lwt_sched *s)
{
    if (s->waiters > 0)
        pthread_cond_broadcast(&s->cond);
}

static int valid_worker(const lwt_sched *s, int worker)
{
    return s && worker >= 0 && worker < s->nw;
}

/* ---------------------------------------------------------------------------------------------
 * Splitting a set
 * ------------------------------------------------------------------------------------------- */

/* Contiguous split of [0, n) over the live workers in index order, equal or proportional to the
 * profile weight (cumulative rounding, so the shares tile [0, n) exactly). The equal split is
 * integer arithmetic, the i-th live worker of m ending at floor(n i / m) exactly, as documented:
 * the device-resident spread (stream/spread_layout.c) places array rows by these shares, and
 * the floating-point n * (7 / 10.) rounds below the integer (62 for 90 chunks). */
static void split_contiguous(lwt_sched *s, int by_weight)
{
    double total = 0.0, cum = 0.0;
    int last = -1;
    long m = 0, nth = 0; /* live workers; those placed so far */
    for (int i = 0; i < s->nw; i++)
        if (s->w[i].live) {
            total += by_weight ? s->w[i].weight : 1.0;
            last = i;
            m++;
        }
    long lo = 0;
    for (int i = 0; i < s->nw; i++) {
        wstate *k = &s->w[i];
        if (!k->live)
            continue;
        double wt = by_weight ? k->weight : 1.0;
        cum += wt;
        nth++;
        /* n (nth / m) without overflowing n * nth */
        long hi = i == last ? s->n
                  : by_weight ? (long)floor((double)s->n * (cum / total))
                              : (s->n / m) * nth + (s->n % m) * nth / m;
        k->lo = lo;
        k->hi = hi < lo ? lo : hi;
        k->split = wt / total;
        lo = k->hi;
    }
}

/* The seed's first grouping: every live worker starts with a group sized by its CP, taken from
 * the whole set (not the shrinking pool) so that worker order does not matter. */
static void fnn_first_groups(lwt_sched *s)
{
    fnn_refresh_cp(s);
    for (int i = 0; i < s->nw; i++) {
        wstate *k = &s->w[i];
        long avail = s->pool_hi - s->pool_lo;
        if (!k->live || avail == 0)
            continue;
        long g = group_size(k->cp, s->n);
        k->lo = s->pool_lo;
        k->hi = k->lo + (g < avail ? g : avail);
        s->pool_lo = k->hi;
    }
}

static void split_set(lwt_sched *s)
{
    switch (s->policy) {
    case LWT_BALANCE_STATIC:
    case LWT_BALANCE_WEIGHTED:
        split_contiguous(s, s->policy == LWT_BALANCE_WEIGHTED);
        break;
    case LWT_BALANCE_QUEUE:
    case LWT_BALANCE_FNN:
        s->pool_lo = 0;
        s->pool_hi = s->n;
        if (s->policy == LWT_BALANCE_FNN)
            fnn_first_groups(s);
        break;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Public functions
 * ------------------------------------------------------------------------------------------- */

/* profile field f in the FNN's input order F, M, P, MS, BC */
static double profile_field(const lwt_worker_profile *p, int f)
{
    const double v[FNN_STATIC] = {p->gflops, p->mem_gib, p->parallel, p->mem_gbs, p->bus_gbs};
    return v[f];
}

/* static inputs: each profile field relative to the largest worker's; unknown counts as high */
static void set_static_inputs(lwt_sched *s, const lwt_worker_profile *p)
{
    for (int f = 0; f < FNN_STATIC; f++) {
        double mx = 0.0;
        for (int i = 0; i < s->nw && p; i++) {
            double v = profile_field(&p[i], f);
            mx = isfinite(v) && v > mx ? v : mx;
        }
        for (int i = 0; i < s->nw; i++) {
            double v = p ? profile_field(&p[i], f) : 0.0;
            s->w[i].stat[f] = (mx > 0.0 && v > 0.0 && isfinite(v)) ? v / mx : 1.0;
        }
    }
}

int lwt_sched_create(lwt_balance policy, int nworkers, const lwt_worker_profile *profiles, lwt_sched **out)
{
    if (!out)
        return -1;
    *out = NULL;
    if ((int)policy < LWT_BALANCE_STATIC || (int)policy > LWT_BALANCE_FNN || nworkers < 1 || nworkers > 65536)
        return -1;
    lwt_sched *s = calloc(1, sizeof *s);
    if (!s)
        return -2;
    s->w = calloc((size_t)nworkers, sizeof *s->w);
    s->sec_est = calloc((size_t)nworkers, sizeof *s->sec_est);
    s->free_at = calloc((size_t)nworkers, sizeof *s->free_at);
    int mutex_ok = 0;
    if (!s->w || !s->sec_est || !s->free_at || !(mutex_ok = pthread_mutex_init(&s->lock, NULL) == 0) ||
        pthread_cond_init(&s->cond, NULL) != 0) {
        if (mutex_ok)
            pthread_mutex_destroy(&s->lock);
        free(s->w);
        free(s->sec_est);
        free(s->free_at);
        free(s);
        return -2;
    }
    s->policy = policy;
    s->nw = s->nlive = nworkers;
    double wmax = 0.0;
    for (int i = 0; i < nworkers; i++) {
        s->w[i].live = 1;
        s->w[i].weight = profiles ? profile_weight(&profiles[i]) : 1.0;
        wmax = s->w[i].weight > wmax ? s->w[i].weight : wmax;
    }
    set_static_inputs(s, profiles);
    for (int i = 0; i < nworkers; i++) /* LCP prior: the weighted formula, relative to the largest */
        s->w[i].lcp = s->w[i].weight / wmax > CP_FLOOR ? s->w[i].weight / wmax : CP_FLOOR;
    fnn_init_rules(s);
    fnn_refresh_cp(s);
    *out = s;
    return 0;
}

void lwt_sched_destroy(lwt_sched *s)
{
    if (!s)
        return;
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->lock);
    free(s->state);
    free(s->rec);
    free(s->w);
    free(s->sec_est);
    free(s->free_at);
    free(s);
}

static int reserve_chunks(lwt_sched *s, long n)
{
    if (n <= s->cap)
        return 0;
    int *st = realloc(s->state, (size_t)n * sizeof *st);
    if (!st)
        return -1;
    s->state = st;
    long *rec = realloc(s->rec, (size_t)n * sizeof *rec);
    if (!rec)
        return -1;
    s->rec = rec;
    s->cap = n;
    return 0;
}

int lwt_sched_begin(lwt_sched *s, long nchunks)
{
    if (!s)
        return -1;
    pthread_mutex_lock(&s->lock);
    int rc = nchunks >= 0 && (size_t)nchunks <= (size_t)-1 / sizeof(long) ? reserve_chunks(s, nchunks) : -1;
    s->n = rc == 0 ? nchunks : 0;
    for (long c = 0; c < s->n; c++)
        s->state[c] = CHUNK_FREE;
    s->nrec = 0;
    s->unstarted = s->n;
    s->pool_lo = s->pool_hi = 0;
    for (int i = 0; i < s->nw; i++) {
        wstate *k = &s->w[i];
        k->lo = k->hi = 0;
        k->inflight = k->done = 0;
        k->split = 0.0;
        k->measured = 0; /* chunk cost may differ between sets: time afresh, keep LCP and rules */
    }
    split_set(s);
    wake(s);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

long lwt_sched_next(lwt_sched *s, int worker)
{
    if (!valid_worker(s, worker))
        return -1;
    pthread_mutex_lock(&s->lock);
    long c = pick(s, worker, 1);
    if (c >= 0)
        hand_out(s, worker, c);
    pthread_mutex_unlock(&s->lock);
    return c;
}

int lwt_sched_wait(lwt_sched *s, int worker)
{
    if (!valid_worker(s, worker))
        return 0;
    pthread_mutex_lock(&s->lock);
    int r;
    if (!s->w[worker].live)
        r = 0;
    else if (s->w[worker].inflight > 0)
        r = -1;
    else
        for (;;) {
            if (pick(s, worker, 0) >= 0) {
                r = 1;
                break;
            }
            if (!s->w[worker].live || !others_outstanding(s, worker)) {
                r = 0;
                break;
            }
            s->waiters++;
            pthread_cond_wait(&s->cond, &s->lock);
            s->waiters--;
        }
    pthread_mutex_unlock(&s->lock);
    return r;
}

void lwt_sched_done(lwt_sched *s, int worker, long chunk, double seconds, double util_compute, double util_mem)
{
    if (!valid_worker(s, worker))
        return;
    pthread_mutex_lock(&s->lock);
    if (chunk >= 0 && chunk < s->n && s->state[chunk] == worker) {
        wstate *k = &s->w[worker];
        s->state[chunk] = CHUNK_DONE;
        k->inflight--;
        k->done++;
        if (s->policy == LWT_BALANCE_QUEUE || s->policy == LWT_BALANCE_FNN)
            feedback(s, k, seconds, util_compute, util_mem);
        wake(s);
    }
    pthread_mutex_unlock(&s->lock);
}

/* hand the retired worker's reserved and in-flight chunks to the recovery list */
static void recover_chunks(lwt_sched *s, int worker)
{
    wstate *k = &s->w[worker];
    for (long c = k->lo; c < k->hi; c++)
        s->rec[s->nrec++] = c; /* reserved chunks are already counted as unstarted */
    k->lo = k->hi = 0;
    for (long c = 0; c < s->n && k->inflight > 0; c++)
        if (s->state[c] == worker) {
            s->state[c] = CHUNK_FREE;
            s->rec[s->nrec++] = c;
            s->unstarted++;
            k->inflight--;
        }
}

int lwt_sched_failed(lwt_sched *s, int worker, long chunk)
{
    (void)chunk; /* it is in flight on this worker, so recover_chunks finds it with the others */
    if (!valid_worker(s, worker))
        return -1;
    pthread_mutex_lock(&s->lock);
    wstate *k = &s->w[worker];
    if (k->live) {
        k->live = 0;
        s->nlive--;
        recover_chunks(s, worker);
        fnn_refresh_cp(s);
        wake(s);
    }
    int r = s->nlive > 0 ? s->nlive : -1;
    pthread_mutex_unlock(&s->lock);
    return r;
}

/* shares over the live workers only: a retired worker reports 0 */
static void fill_shares(const lwt_sched *s, double *share)
{
    long live_done = 0;
    double split_sum = 0.0;
    for (int i = 0; i < s->nw; i++)
        if (s->w[i].live) {
            live_done += s->w[i].done;
            split_sum += s->w[i].split;
        }
    for (int i = 0; i < s->nw; i++) {
        const wstate *k = &s->w[i];
        double v = 0.0;
        if (!k->live)
            v = 0.0;
        else if (s->policy == LWT_BALANCE_FNN)
            v = k->cp;
        else if (s->policy == LWT_BALANCE_QUEUE)
            v = live_done > 0 ? (double)k->done / (double)live_done : 1.0 / s->nlive;
        else
            v = split_sum > 0.0 ? k->split / split_sum : 1.0 / s->nlive;
        share[i] = v;
    }
}

void lwt_sched_stats(const lwt_sched *s, long *done_per_worker, double *share_per_worker)
{
    if (!s)
        return;
    /* the mutex is part of a heap object that is never const itself */
    pthread_mutex_t *lock = (pthread_mutex_t *)&s->lock;
    pthread_mutex_lock(lock);
    for (int i = 0; i < s->nw && done_per_worker; i++)
        done_per_worker[i] = s->w[i].done;
    if (share_per_worker)
        fill_shares(s, share_per_worker);
    pthread_mutex_unlock(lock);
}

static const char *const balance_names[] = {"static", "weighted", "queue", "fnn"};

const char *lwt_balance_name(lwt_balance b)
{
    return (int)b >= 0 && (int)b < 4 ? balance_names[b] : "unknown";
}

int lwt_balance_parse(const char *name, lwt_balance *out)
{
    for (int i = 0; name && i < 4; i++)
        if (strcmp(name, balance_names[i]) == 0) {
            if (out)
                *out = (lwt_balance)i;
            return 0;
        }
    return -1;
}
