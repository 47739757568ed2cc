/* collectives: calibrate --collectives (calibrate/collectives.c). */
#ifndef SCITORUS_CALIBRATE_COLLECTIVES_H
#define SCITORUS_CALIBRATE_COLLECTIVES_H

/* 1 when the command line asks for --collectives. */
int calibrate_collectives_wanted(int argc, char **argv);
/* The whole mode; returns the exit status. */
int calibrate_collectives(int argc, char **argv);

#endif
