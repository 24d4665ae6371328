// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope top: watch TLB flushing as it happens, perf top / htop style.  Live, events come
 * from a tracefs instance of our own ("tlbscope-top-<pid>", removed on every exit path,
 * the top-level buffer never touched); with --replay, from any trace tlbscope reads, paced
 * by its timestamps.  Either way they go through the timeline into dashboards/' model, which
 * also feeds the tuner; the screen is curses, or plain-text snapshots in batch mode (-b).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../dashboards/dashboards.h"
#include "../lib/lib.h"
#include "../record/record.h"
#include "cli.h"

static const char top_usage[] =
	"usage: tlbscope top [--replay TRACE [--speed X|max]] [--threshold T] [--queue Q]\n"
	"                    [-d SECONDS] [-b] [-n ITERATIONS]\n"
	"\n"
	"  --replay TRACE     replay a trace (any format tlbscope reads; '-' is stdin) instead\n"
	"                     of watching this machine live (live needs root)\n"
	"  --speed X          replay X times as fast as recorded (default 1); 'max': no pacing\n"
	"  --threshold T      MAX_LOADED_MM of the lazy model shown per CPU (default 6)\n"
	"  --queue Q          MAX_TLB_FLUSH_TASK of the lazy model (default 32)\n"
	"  --platform P       cost profile of the recommendation (default generic)\n"
	"  --machine M        auto (default), vm or metal: whether the events' timings\n"
	"                     price the recommendation, as tune's --machine\n"
	"  -d, --delay SECONDS  screen refresh / snapshot interval (default 1)\n"
	"  -b, --batch        plain-text snapshots on stdout (default when stdout is not a tty)\n"
	"  -n, --iterations N stop after N snapshots or screen refreshes\n"
	"  -j, --jobs N       threads reading a trace.dat (default: the CPUs\n"
	"                     available; 1: no thread started)\n"
	"  --strict           exit 2 when records failed the input's checks (skipped,\n"
	"                     inconsistent, escaped; each said on stderr anyway)\n"
	"  -h, --help         this text\n"
	"\n"
	"Keys: q quit, p or space freeze, s sort, t timeline strip, + - replay speed, h or ? help.\n";

struct top_opts {
	const char *replay;
	double speed;			/* 0 = max */
	int T, Q;
	const char *platform;
	enum tuner_machine machine;
	uint64_t delay_ns;
	bool batch;
	long iterations;		/* 0 = no limit */
};

/* Test hook and parse entry: fills @o, never exits.  0 ok, 1 help shown, -1 bad usage. */
int top_parse_args(struct top_opts *o, int argc, char **argv);

int top_parse_args(struct top_opts *o, int argc, char **argv)
{
	enum { OPT_REPLAY = OPT_LONG, OPT_SPEED, OPT_THRESHOLD, OPT_QUEUE, OPT_PLATFORM,
	       OPT_MACHINE };
	static const struct cli_option opts[] = {
		{ "replay", OPT_REPLAY, true }, { "speed", OPT_SPEED, true },
		{ "threshold", OPT_THRESHOLD, true }, { "queue", OPT_QUEUE, true },
		{ "platform", OPT_PLATFORM, true }, { "machine", OPT_MACHINE, true },
		{ "delay", 'd', true }, { "batch", 'b', false },
		{ "iterations", 'n', true }, STRICT_OPT, JOBS_OPT, { NULL }
	};
	struct cli_parser p;
	const char *v;
	int key, machine;
	bool speed_given = false;

	memset(o, 0, sizeof(*o));
	o->speed = 1;
	o->T = LAZY_DEFAULT_T;
	o->Q = LAZY_DEFAULT_Q;
	o->delay_ns = 1000000000ULL;
	o->batch = !isatty(STDOUT_FILENO);
	cli_parser_init(&p, "top", top_usage, opts, 0, argc, argv);
	while ((key = cli_parser_next(&p, &v)) != CLI_END) {
		uint64_t u;
		char *end;

		switch (key) {
		case CLI_HELP:
			return 1;
		case CLI_BAD:
			return -1;
		case CLI_ARG:
			error("top: unexpected argument '%s' (a trace goes after --replay)\n%s", v,
			      top_usage);
			return -1;
		case 'b':
			o->batch = true;
			break;
		case OPT_STRICT:
			cli_strict = true;
			break;
		case 'j':
			if (jobs_opt(v) < 0)
				return -1;
			break;
		case OPT_REPLAY:
			o->replay = v;
			break;
		case OPT_SPEED:
			speed_given = true;
			if (!strcmp(v, "max")) {
				o->speed = 0;
				break;
			}
			o->speed = strtod(v, &end);
			if (end == v || *end || !(o->speed > 0) || o->speed > 1e9) {
				error("top: --speed: '%s' is not a factor like 1, 0.5, 50 or 'max'", v);
				return -1;
			}
			break;
		case OPT_THRESHOLD:
		case OPT_QUEUE:
			if (opt_lazy_point("top", key == OPT_THRESHOLD, v, &o->T, &o->Q))
				return -1;
			break;
		case OPT_PLATFORM:
			o->platform = v;
			break;
		case OPT_MACHINE:
			machine = tuner_machine_parse(v);
			if (machine < 0) {
				error("top: --machine: '%s' is not auto, vm or metal", v);
				return -1;
			}
			o->machine = machine;
			break;
		case 'd':
			if (parse_duration_ns(v, &o->delay_ns) || o->delay_ns < 10000000ULL) {
				error("top: --delay: '%s' is not a time of at least 0.01 s", v);
				return -1;
			}
			break;
		case 'n':
			if (parse_u64(v, 10, &u) || !u || u > 1000000000ULL) {
				error("top: --iterations: '%s' is not a positive count", v);
				return -1;
			}
			o->iterations = (long)u;
			break;
		}
	}
	if (speed_given && !o->replay) {
		error("top: --speed applies to --replay only");
		return -1;
	}
	return 0;
}

/* ---- the driver ---- */

struct top_run {
	const struct top_opts *o;
	struct ts_source *src;
	struct timeline *tl;
	struct top_model *model;
	struct top_view *view;
	struct top_status st;
	char source_name[512];
	struct ts_event pending;	/* read, not yet due (replay pacing) */
	bool has_pending, ended;
	double speed;
	uint64_t wall_base, trace_base;	/* pacing: trace_base is shown at wall_base */
	uint64_t first_ts, last_ts;	/* replay: span from a first pass, for the position */
	uint64_t t0;			/* wall clock at start */
	uint64_t events, events_tick, wall_tick;
	int ncpus;
	int text_width;			/* batch snapshots: no line wider */
	struct rec *live;		/* watching live: the recording (record/) */
	uint64_t poll_ns;		/* live: the drains' interval now (adapt_poll()) */
	uint64_t drained_at;		/* live: wall clock at the end of the last drain */
	char look[200];			/* live: "vm (why)" or "metal (why)" of this machine */
};

/*
 * Live, the ring buffers are drained every POLL_MIN_MS to POLL_MAX_MS, starting at
 * POLL_START_MS.  Each drain wakes top and reads every CPU, which is what top costs on an
 * idle machine (every 20 ms: 0.47 % of a core, every 50 ms: 0.27 %), and a part of what
 * it costs under a load (the data it touches come back into the caches at each drain).
 * So the drains are as rare as the buffers allow: after each, the interval is scaled so
 * that the fullest CPU's buffer would be an eighth full at the next (100k events/s write
 * some 350 KiB in 50 ms; a CPU's buffer is 4 MiB, 512 KiB at least on big machines).
 */
#define POLL_MIN_MS	10
#define POLL_START_MS	50
#define POLL_MAX_MS	200
#define POLL_FILL	(1.0 / 8)

/*
 * How long an event may wait in the timeline's lookahead (ns of trace time) before the model
 * gets it.  The lookahead holds up to 8192 events to resolve each with what follows it; on
 * an idle machine, or a sparse trace replayed at its pace, that was seconds to minutes of
 * nothing shown (a Debian riscv64 guest at 200 events/s never filled it).
 */
#define TOP_LOOKAHEAD_NS	250000000ULL

static volatile sig_atomic_t top_signal;

static void top_on_signal(int sig)
{
	top_signal = sig;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	nanosleep(&ts, NULL);	/* a signal cuts it short, which is what we want */
}

/*
 * First and last timestamps of the replayed trace: the position shown in the header.  From
 * a trace.dat's records alone (ts_source_span()), so a large one starts without a first
 * reading of all its events.
 */
static void replay_span(struct top_run *r)
{
	char err[TS_ERR_LEN];
	struct ts_source *s;
	uint64_t first, last;

	if (ts_input_once(r->o->replay))
		return;		/* read once, by the replay: the position is not known */
	s = ts_source_open(r->o->replay, err);
	if (!s)
		return;
	if (ts_source_span(s, &first, &last) > 0) {
		r->first_ts = first;
		r->last_ts = last;
	}
	ts_source_close(s);
}

/* Is the pending event due at wall time @now? */
static bool due(struct top_run *r, uint64_t now)
{
	if (r->speed <= 0)
		return true;
	if (!r->wall_base) {
		r->wall_base = now;
		r->trace_base = r->pending.ts;
	}
	return r->pending.ts <= r->trace_base ||
	       (double)(r->pending.ts - r->trace_base) / r->speed <= (double)(now - r->wall_base);
}

/* The events older than @now - TOP_LOOKAHEAD_NS (trace time) out of the lookahead. */
static void release(struct top_run *r, uint64_t now)
{
	if (now > TOP_LOOKAHEAD_NS)
		timeline_release(r->tl, now - TOP_LOOKAHEAD_NS, top_model_feed, r->model);
}

/*
 * The next interval between drains, from how full the drain just ended found the fullest
 * CPU's buffer over the time since the one before (drains come at the interval and before
 * each snapshot): the time that would make it POLL_FILL full, at most twice or half the
 * interval before.
 */
static void adapt_poll(struct top_run *r)
{
	double fill = ts_source_live_fill(r->src), want;
	uint64_t now = mono_ns(), since = now - r->drained_at;

	r->drained_at = now;
	if (fill < 0 || !since)
		return;		/* the buffers' size unknown: the interval stays */
	want = fill > 0 ? (double)since * POLL_FILL / fill : 2.0 * (double)r->poll_ns;
	if (want > 2.0 * (double)r->poll_ns)
		want = 2.0 * (double)r->poll_ns;
	if (want < 0.5 * (double)r->poll_ns)
		want = 0.5 * (double)r->poll_ns;
	r->poll_ns = (uint64_t)want;
	if (r->poll_ns < POLL_MIN_MS * 1000000ULL)
		r->poll_ns = POLL_MIN_MS * 1000000ULL;
	if (r->poll_ns > POLL_MAX_MS * 1000000ULL)
		r->poll_ns = POLL_MAX_MS * 1000000ULL;
}

/*
 * Read and feed events until @deadline (wall ns) or, replaying, until the next event is not
 * due yet; live, until nothing is buffered.  Returns 0, or -1 on bad input (message printed
 * after the screen is closed by the caller: kept in the source).
 */
static int pump(struct top_run *r, uint64_t deadline)
{
	int n = 0;

	while (!r->ended && !top_signal) {
		if (!r->has_pending) {
			int got = ts_source_next(r->src, &r->pending);

			if (got < 0)
				return -1;
			if (got == 0) {
				if (r->live) {
					/* nothing buffered right now: all up to done was read */
					release(r, ts_source_live_done(r->src));
					adapt_poll(r);
					return 0;
				}
				r->ended = true;
				timeline_finish(r->tl, top_model_feed, r->model);
				/* the queues still open count as tune counts them */
				top_model_finish(r->model);
				break;
			}
			r->has_pending = true;
		}
		if (!r->live && !due(r, mono_ns())) {
			/* the replay's position: trace_base + the wall time since, times the speed */
			release(r, r->trace_base +
				(uint64_t)((double)(mono_ns() - r->wall_base) * r->speed));
			return 0;
		}
		/* the span of the events read so far: the header's trace time */
		if (!r->st.have_ts || r->pending.ts < r->st.first_ts)
			r->st.first_ts = r->pending.ts;
		if (!r->st.have_ts || r->pending.ts > r->st.last_ts)
			r->st.last_ts = r->pending.ts;
		r->st.have_ts = true;
		timeline_feed(r->tl, &r->pending, top_model_feed, r->model);
		r->has_pending = false;
		r->events++;
		/* the clock is read every 256 events: cheap, and keys stay responsive */
		if (!(++n & 255) && mono_ns() >= deadline)
			return 0;
	}
	return 0;
}

/* Change the replay speed without a jump: the current position stays where it is. */
static void set_speed(struct top_run *r, double speed)
{
	if (r->live || speed <= 0)
		return;
	if (speed > 1e6)
		speed = 1e6;
	if (speed < 1e-3)
		speed = 1e-3;
	r->speed = speed;
	r->wall_base = 0;	/* re-based at the next due() */
}

static void update_status(struct top_run *r, uint64_t now)
{
	uint64_t lost_unknown;
	double dt = (now - r->wall_tick) / 1e9;

	r->st.elapsed = (now - r->t0) / 1e9;
	/* none before a first interval has passed */
	r->st.event_rate = dt > 0 ? (r->events - r->events_tick) / dt : -1;
	r->events_tick = r->events;
	r->wall_tick = now;
	r->st.events = r->events;
	r->st.ended = r->ended;
	r->st.speed = r->speed;
	r->st.lost = timeline_lost(r->tl, &lost_unknown);
	if (r->live) {
		/* the ring's own count of what it overwrote or dropped: the stream's missed
		 * marks count the same events again, so the larger of the two */
		uint64_t ring = rec_lost(r->live, false);

		if (ring > r->st.lost)
			r->st.lost = ring;
	}
	r->st.percent = -1;
	if (!r->live && r->last_ts > r->first_ts) {
		/* as far as the events read, as the header's trace time */
		uint64_t at = r->ended ? r->last_ts : r->st.last_ts;

		r->st.percent = at <= r->first_ts ? 0 : 100.0 * (at - r->first_ts) /
						     (r->last_ts - r->first_ts);
		if (r->st.percent > 100)
			r->st.percent = 100;
	}
}

static void snapshot(struct top_run *r, uint64_t now)
{
	top_model_tick(r->model, r->tl);
	update_status(r, now);
	if (r->view) {
		top_view_draw(r->view, r->model, r->tl, &r->st);
		return;
	}
	top_text_print(stdout, r->text_width, r->model, r->tl, &r->st);
	/* a reader that went away (| head) ends top like a signal: cleanly, tracefs restored */
	if (fflush(stdout) || ferror(stdout))
		top_signal = SIGPIPE;
}

/*
 * The loop: events in, a snapshot every -d, keys between (interactive).  Returns 0, or -1
 * on bad input (message in the source).
 */
static int top_loop(struct top_run *r)
{
	const struct top_opts *o = r->o;
	uint64_t next = mono_ns() + o->delay_ns;
	long shots = 0;

	r->t0 = r->wall_tick = mono_ns();
	if (r->view)
		snapshot(r, r->t0);
	while (!top_signal) {
		uint64_t now = mono_ns();
		/* replaying, the clock is looked at every 50 ms between snapshots */
		uint64_t poll = r->live ? r->poll_ns : 50000000ULL;
		uint64_t until = next < now + poll ? next : now + poll;

		if (pump(r, until))
			return -1;
		now = mono_ns();
		if (r->view) {
			int wait = 0, k;

			/* wait for a key until the next thing to do: the next due event or tick */
			if (now < until && (r->ended || r->has_pending || r->live))
				wait = (int)((until - now) / 1000000ULL);
			if (r->live && wait > (int)(poll / 1000000ULL))
				wait = (int)(poll / 1000000ULL);
			k = top_view_key(r->view, wait);
			if (k & TOP_KEY_QUIT)
				break;
			if (k & TOP_KEY_FASTER)
				set_speed(r, r->speed * 2);
			if (k & TOP_KEY_SLOWER)
				set_speed(r, r->speed / 2);
			if (k & TOP_KEY_REDRAW) {
				update_status(r, mono_ns());
				top_view_draw(r->view, r->model, r->tl, &r->st);
			}
		} else if (!r->ended && now < until && (r->has_pending || r->live)) {
			sleep_ns(until - now < poll || !r->live ? until - now : poll);
		}
		now = mono_ns();
		if (r->ended && !r->view) {
			/* batch replay: the final snapshot at the end of the trace */
			snapshot(r, now);
			break;
		}
		if (now >= next) {
			/* live, the events since the last drain first: a snapshot is of now */
			if (r->live && pump(r, now + 50000000ULL))
				return -1;
			snapshot(r, now);
			next += o->delay_ns;
			if (next < now)
				next = now + o->delay_ns;
			if (o->iterations && ++shots >= o->iterations)
				break;
		}
	}
	return 0;
}

/* COLUMNS from the environment, as a shell exports it; 0 when unset or not a width. */
static int columns_env(void)
{
	const char *v = getenv("COLUMNS");
	uint64_t u;

	if (!v || parse_u64(v, 10, &u) || !u || u > 10000)
		return 0;
	return (int)u;
}

/* ---- live: our own tracefs instance ---- */

/* Remove what live_setup() added; safe to call more than once. */
static void live_cleanup(struct top_run *r)
{
	if (!r->live)
		return;
	rec_free(r->live);	/* closes the source it gave */
	r->live = NULL;
	r->src = NULL;
}

static int live_setup(struct top_run *r)
{
	/* 4 MiB per CPU (a second of hackbench at 100k events/s), less on big machines */
	long ncpus = sysconf(_SC_NPROCESSORS_CONF), kb = ncpus > 16 ? 65536 / ncpus : 4096;
	struct rec_config rc = {
		.who = "top", .prefix = "tlbscope-top", .buffer_kb = kb < 512 ? 512 : kb,
		/* a read(2) of trace_pipe_raw takes one sub-buffer: 16 times fewer reads */
		.subbuf_kb = 64,
		.buffer_soft = true, .mono_clock = true, .events = REC_EVENTS_LIVE,
	};
	struct utsname un;
	char err[TS_ERR_LEN];

	/* off a virtual machine the flush handler's time prices the advice: it is read too */
	rec_machine_kind(r->look, sizeof(r->look));
	if (r->o->machine == TUNER_MACHINE_METAL ||
	    (r->o->machine == TUNER_MACHINE_AUTO && !strncmp(r->look, "metal", 5)))
		rc.events = REC_EVENTS_LIVE_TIMED;

	r->poll_ns = POLL_START_MS * 1000000ULL;
	r->drained_at = mono_ns();
	r->live = rec_open(&rc);
	if (!r->live)
		return EXIT_BAD;
	r->src = rec_live_source(r->live, err);
	if (!r->src)
		return error("top: %s", err);
	r->ncpus = ts_source_info(r->src)->cpus;
	if (rec_on(r->live))
		return EXIT_BAD;
	if (!uname(&un))
		snprintf(r->source_name, sizeof(r->source_name), "live %s %s %s (instance %s)",
			 un.nodename, un.release, un.machine, rec_name(r->live));
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = top_on_signal }, old_int, old_term, old_hup;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_pipe;
	struct top_run r = { 0 };
	struct top_opts o;
	struct platform pf;
	char err[TS_ERR_LEN];
	int status = EXIT_BAD, ret;

	ret = top_parse_args(&o, argc, argv);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_BAD;
	r.o = &o;
	r.speed = o.speed;
	/* first: the one requirement a normal user cannot meet, whatever else fails */
	if (!o.replay && cli_need_root("top", "--replay TRACE shows a recorded trace without root"))
		return EXIT_BAD;
	if (platform_load(o.platform, &pf, err))
		return error("%s", err);

	/* before tracefs or the terminal is touched; no SA_RESTART: waits are cut short */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	/* a closed stdout must not kill top before it removes its instance: EPIPE instead */
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old_pipe);

	if (o.replay) {
		replay_span(&r);
		r.src = ts_source_open(o.replay, err);
		if (!r.src) {
			error("%s", err);
			goto out_signals;
		}
		snprintf(r.source_name, sizeof(r.source_name), "replay %s (%s)", o.replay,
			 ts_source_info(r.src)->format);
		r.ncpus = ts_source_info(r.src)->cpus;
	} else if (live_setup(&r)) {
		goto out_close;
	}
	r.st.source = r.source_name;
	r.st.live = !o.replay;
	r.st.percent = -1;
	r.st.event_rate = -1;
	r.text_width = top_text_width(columns_env());
	r.tl = timeline_new(r.src, NULL);
	r.model = top_model_new(o.T, o.Q, r.ncpus, &pf);
	/* ended mms' ids go to new ones: memory as the processes that live, not all seen */
	if (!getenv("TLBSCOPE_TOP_KEEP_MMS"))
		top_model_recycle(r.model, r.tl);
	top_model_source(r.model, ts_source_info(r.src));
	top_model_machine(r.model, o.machine, o.replay ? NULL : r.look);
	if (!o.batch) {
		char why[160];

		r.view = top_view_open(why, sizeof(why));
		if (!r.view) {
			error("top: cannot draw the view: %s; use -b for plain-text snapshots", why);
			goto out_close;
		}
	}
	ret = top_loop(&r);
	top_view_close(r.view);
	r.view = NULL;
	if (ret) {
		error("%s", ts_source_error(r.src));
		goto out_close;
	}
	/* after the screen is closed: what the input's checks found, as every command says */
	status = source_checks_warn(r.src, o.replay ? o.replay : "live tracing");

out_close:
	top_view_close(r.view);
	live_cleanup(&r);
	top_model_free(r.model);
	timeline_free(r.tl);
	ts_source_close(r.src);
out_signals:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	return status;
}
