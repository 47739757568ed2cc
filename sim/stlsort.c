/* stlsort: libstdc++'s std::sort (introsort: median-of-three quicksort to
 * 16-element pieces, heapsort past 2 log2(n) levels, a final insertion
 * sort), reproduced because its unstable order is part of LogGOPSim's
 * event order. */
#include "sim/stlsort.h"

typedef struct ctx { const uint8_t *key; size_t stride; } ctx;

static inline int less(const ctx *c, uint32_t a, uint32_t b)
{
    return c->key[(size_t)a * c->stride] < c->key[(size_t)b * c->stride];
}

static inline void swap(uint32_t *a, uint32_t *b)
{
    uint32_t t = *a;
    *a = *b;
    *b = t;
}

static void push_heap(const ctx *c, uint32_t *f, long hole, long top, uint32_t v)
{
    long parent = (hole - 1) / 2;
    while (hole > top && less(c, f[parent], v)) {
        f[hole] = f[parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    f[hole] = v;
}

static void adjust_heap(const ctx *c, uint32_t *f, long hole, long len, uint32_t v)
{
    long top = hole, child = hole;
    while (child < (len - 1) / 2) {
        child = 2 * (child + 1);
        if (less(c, f[child], f[child - 1]))
            child--;
        f[hole] = f[child];
        hole = child;
    }
    if ((len & 1) == 0 && child == (len - 2) / 2) {
        child = 2 * (child + 1);
        f[hole] = f[child - 1];
        hole = child - 1;
    }
    push_heap(c, f, hole, top, v);
}

static void heap_sort(const ctx *c, uint32_t *f, long len)
{
    if (len >= 2)
        for (long parent = (len - 2) / 2;; parent--) {
            adjust_heap(c, f, parent, len, f[parent]);
            if (parent == 0)
                break;
        }
    for (long last = len; last > 1;) {
        last--;
        uint32_t v = f[last];
        f[last] = f[0];
        adjust_heap(c, f, 0, last, v);
    }
}

static void move_median_to_first(const ctx *c, uint32_t *r, uint32_t *a, uint32_t *b, uint32_t *d)
{
    if (less(c, *a, *b)) {
        if (less(c, *b, *d))
            swap(r, b);
        else if (less(c, *a, *d))
            swap(r, d);
        else
            swap(r, a);
    } else if (less(c, *a, *d))
        swap(r, a);
    else if (less(c, *b, *d))
        swap(r, d);
    else
        swap(r, b);
}

static uint32_t *unguarded_partition(const ctx *c, uint32_t *first, uint32_t *last, uint32_t *pivot)
{
    for (;;) {
        while (less(c, *first, *pivot))
            first++;
        last--;
        while (less(c, *pivot, *last))
            last--;
        if (!(first < last))
            return first;
        swap(first, last);
        first++;
    }
}

static void introsort_loop(const ctx *c, uint32_t *first, uint32_t *last, long depth)
{
    while (last - first > 16) {
        if (depth == 0) {
            heap_sort(c, first, last - first);
            return;
        }
        depth--;
        uint32_t *mid = first + (last - first) / 2;
        move_median_to_first(c, first, first + 1, mid, last - 1);
        uint32_t *cut = unguarded_partition(c, first + 1, last, first);
        introsort_loop(c, cut, last, depth);
        last = cut;
    }
}

static void unguarded_linear_insert(const ctx *c, uint32_t *last)
{
    uint32_t v = *last;
    uint32_t *next = last - 1;
    while (less(c, v, *next)) {
        *last = *next;
        last = next;
        next--;
    }
    *last = v;
}

static void insertion_sort(const ctx *c, uint32_t *first, uint32_t *last)
{
    if (first == last)
        return;
    for (uint32_t *i = first + 1; i != last; i++) {
        if (less(c, *i, *first)) {
            uint32_t v = *i;
            for (uint32_t *j = i; j != first; j--)
                *j = *(j - 1);
            *first = v;
        } else
            unguarded_linear_insert(c, i);
    }
}

void stl_sort_by_key(uint32_t *ids, size_t n, const uint8_t *key, size_t key_stride)
{
    ctx c = {key, key_stride};
    if (n < 2)
        return;
    long lg = 63 - __builtin_clzll((unsigned long long)n);
    introsort_loop(&c, ids, ids + n, 2 * lg);
    if (n > 16) {
        insertion_sort(&c, ids, ids + 16);
        for (uint32_t *i = ids + 16; i != ids + n; i++)
            unguarded_linear_insert(&c, i);
    } else
        insertion_sort(&c, ids, ids + n);
}
