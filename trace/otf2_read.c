/* otf2_read: an OTF2 archive as a trace directory (filled in below). */
#include "trace/tracefile.h"
