/* scimodel_traffic: the `scimodel --traffic FILE` mode:
 * project an application's traffic matrix onto candidate tori and
 * placements, and say which wins. */
#ifndef SCITORUS_SCIMODEL_TRAFFIC_H
#define SCITORUS_SCIMODEL_TRAFFIC_H

#include <stdio.h>

/* The mode's part of `scimodel --help`. */
void scimodel_traffic_help(FILE *fp);

/* 1 if argv asks for this mode (a --traffic option before any "--"). */
int scimodel_traffic_wanted(int argc, char **argv);

/* Runs the mode on the whole command line; returns the exit status
 * (0, 1 for an unreadable or malformed file, 2 for a usage error). */
int scimodel_traffic_main(int argc, char **argv);

#endif
