/* usage: calibrate's --help text. */
#ifndef SCITORUS_CALIBRATE_USAGE_H
#define SCITORUS_CALIBRATE_USAGE_H

extern const char calibrate_usage_text[];

#endif
