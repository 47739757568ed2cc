# sim/: GOAL schedules and their replay (scisim): LogGOPSim's LogGP rules
# exactly, and candidate tori with and without link contention.
# layer sim: the GOAL reader and the replay engine (no options, no output)
LAYERS += sim
sim_LAYER_USES := sched model topo util
sim_LAYER_SRCS := sim/stlsort.c sim/engine.c sim/net.c sim/stuck.c sim/wait.c sim/match.c \
                  sim/router.c sim/router_replay.c
PROGRAMS += scisim
scisim_SRCS = sim/scisim_main.c sim/scisim_options.c sim/scisim_output.c sim/scisim_loggp.c \
              sim/scisim_torus.c sim/schedule_traffic.c sim/scisim_collective.c \
              sim/scisim_traffic.c
scisim_LAYERS := sim coll sched model benchdata topo util
TESTS    += tests/test_sim.c tests/test_sim_trace.c tests/test_sim_work.c tests/test_sim_output.c \
            tests/test_router.c tests/test_router_cli.c

# make bench: replay speed against LogGOPSim (LOGGOPSIM=<its src/ directory>)
BENCH_TARGETS += bench-sim
.PHONY: bench-sim
bench-sim: bin/scisim
	sim/bench_sim.sh bin $(or $(RUNS),3)

# make sim-figure [SIM_GOAL=app.goal SIM_TRAFFIC=app.tsv]: makespan against D
.PHONY: sim-figure
sim-figure: bin/scisim bin/scimodel
	sim/figure.sh bin $(or $(PLOTS_OUT),plots/out) $(SIM_GOAL) $(SIM_TRAFFIC)

# make router-figure: the router model's latency against offered load (docs/router.md)
.PHONY: router-figure
router-figure: bin/scisim
	sim/latency_load.sh bin $(or $(PLOTS_OUT),plots/out)
