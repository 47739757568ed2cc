# scisim/: the scisim command -- replays a GOAL schedule (or a generated
# collective, --collective) with LogGP or on candidate tori; its figures.
PROGRAMS += scisim
scisim_SRCS = scisim/scisim_main.c scisim/scisim_options.c scisim/scisim_output.c scisim/scisim_loggp.c \
              scisim/scisim_torus.c scisim/schedule_traffic.c scisim/scisim_collective.c \
              scisim/scisim_traffic.c
scisim_LAYERS := sim coll sched model benchdata topo util
TESTS    += tests/test_sim.c tests/test_sim_trace.c tests/test_sim_work.c tests/test_sim_output.c \
            tests/test_router_cli.c

# make bench: replay speed against LogGOPSim (LOGGOPSIM=<its src/ directory>), and the
# engine on wide schedules against its build before the per-queue matching tables
BENCH_TARGETS += bench-sim
.PHONY: bench-sim
bench-sim: bin/scisim
	scisim/bench_sim.sh bin $(or $(RUNS),3)

# make bench: the router model's flit-hops/s against BookSim 2's (BOOKSIM=<its booksim binary>),
# and the replay with the router off before and after the router model entered it
BENCH_TARGETS += bench-router
.PHONY: bench-router
bench-router: bin/scisim
	scisim/bench_router.sh bin $(or $(RUNS),3)

# make sim-figure [SIM_GOAL=app.goal SIM_TRAFFIC=app.tsv]: makespan against D
.PHONY: sim-figure
sim-figure: bin/scisim bin/scimodel
	scisim/figure.sh bin $(or $(PLOTS_OUT),plots/out) $(SIM_GOAL) $(SIM_TRAFFIC)

# make router-figure: the router model's latency against offered load (docs/router.md)
.PHONY: router-figure
router-figure: bin/scisim
	scisim/latency_load.sh bin $(or $(PLOTS_OUT),plots/out)
