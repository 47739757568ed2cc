/* scilogp_app: a program of the library's users, built by test_scilogp with
 * `cc scilogp_app.c $(pkg-config --cflags --libs scilogp)` against a
 * DESTDIR install.  scilogp_app FILE SHAPE H1,H2,.. SIZE...: per size one
 * line "size o os or g L route" (%.9g, nan where the file has none). */
#include <scilogp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    char err[512];
    if (argc < 5)
        return fprintf(stderr, "usage: scilogp_app FILE SHAPE HOPS SIZE...\n"), 2;
    scilogp *l = scilogp_open(argv[1], err, sizeof err);
    if (!l)
        return fprintf(stderr, "scilogp_app: %s\n", err), 1;
    long hops[16];
    int n = 0;
    for (char *t = strtok(argv[3], ","); t && n < 16; t = strtok(NULL, ","))
        hops[n++] = atol(t);
    for (int i = 4; i < argc; i++) {
        double m = atof(argv[i]);
        printf("%s %.9g %.9g %.9g %.9g %.9g %.9g\n", argv[i], scilogp_o(l, m), scilogp_os(l, m),
               scilogp_or(l, m), scilogp_g(l, m), scilogp_L(l),
               scilogp_route_ns(l, argv[2], hops, m));
    }
    scilogp_close(l);
    return 0;
}
