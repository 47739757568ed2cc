/* exit: the exit statuses every program shares -- 0 success, 1 runtime
 * failure (EXIT_FAILURE), 2 usage error (EXIT_USAGE). */
#ifndef SCITORUS_EXIT_H
#define SCITORUS_EXIT_H

#define EXIT_USAGE 2

#endif
