/* grow: see grow.h. */
#include "util/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* arrp points at a T *: copied through memcpy, as T * and void * share
 * their representation, so that no T * is written through a void * lvalue. */
int util_grow_(void *arrp, size_t *cap, size_t elem, size_t first)
{
    void *arr, *p;
    if (*cap > SIZE_MAX / 2)
        return -1;
    size_t nc = *cap ? 2 * *cap : first;
    if (nc > SIZE_MAX / elem)
        return -1;
    memcpy(&arr, arrp, sizeof arr);
    p = realloc(arr, nc * elem);
    if (!p)
        return -1;
    memcpy(arrp, &p, sizeof p);
    *cap = nc;
    return 0;
}
