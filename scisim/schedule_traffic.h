/* schedule_traffic: the traffic matrix of a schedule's sends. */
#ifndef SCITORUS_SCHEDULE_TRAFFIC_H
#define SCITORUS_SCHEDULE_TRAFFIC_H

#include "model/traffic.h"
#include "sched/goal.h"

/* Fills t (free with traffic_free).  Returns 0, -1 out of memory. */
int schedule_traffic(const goal_schedule *s, traffic_matrix *t);

#endif
