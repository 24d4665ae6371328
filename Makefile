# SPDX-License-Identifier: GPL-2.0-only
# tlbscope - TLB-flush trace analyzer and auto-tuner for RISC-V Linux.
#
#   make run      install missing Debian packages (as root), build, analyze the bundled trace
#   make check    install missing Debian packages (as root), build, run every test
#   make asan     the same tests on an ASan+UBSan build
#   make V=1      show the full commands
#   make install PREFIX=/usr/local DESTDIR=

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=
PKG_CONFIG ?= pkg-config
CC ?= cc
BUILD ?= build
PROG := tlbscope
RUN_TRACE ?= corpus/traces/hackbench-aia-4cpu/trace.dat

# name>=version:debian-package - one line per library, checked in one place
LIBS := libtraceevent>=1.5:libtraceevent-dev libtracefs>=1.3:libtracefs-dev \
	libtracecmd>=1.2:libtracecmd-dev jansson>=2.10:libjansson-dev \
	ncursesw>=6.0:libncurses-dev libzstd>=1.4:libzstd-dev zlib>=1.2:zlib1g-dev \
	libdeflate>=1.10:libdeflate-dev
TEST_LIBS := cmocka>=1.1:libcmocka-dev

pc_name = $(firstword $(subst >=, ,$(firstword $(subst :, ,$1))))
pc_min = $(lastword $(subst >=, ,$(firstword $(subst :, ,$1))))
pc_pkg = $(lastword $(subst :, ,$1))
pc_missing = $(strip $(foreach l,$1,$(if $(shell $(PKG_CONFIG) --atleast-version=$(call pc_min,$l) \
	$(call pc_name,$l) 2>/dev/null && echo ok),,$(call pc_pkg,$l))))

ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @printf '  %-6s %s\n'
endif

WARN := -Wall -Wextra -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes -Wvla -Wshadow \
	-Wpointer-arith -Wno-unused-parameter -Wno-missing-field-initializers
ifneq ($(CI),)
WERROR ?= 1
endif
ifeq ($(WERROR),1)
WARN += -Werror
endif
HARDEN := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE
OPT ?= -O2 -g
# x86: a memset or copy of known size (an event cleared for each record) as a call into
# libc, which picks its stores for the CPU, not GCC's inline `rep stos`/`rep movs`: those
# took 78 % of ts_source_next() on an AMD EPYC guest, and report of a trace's JSON lines,
# its text and its trace.dat ran 8-12 % faster without them (bench/README.md, 2026-12-03).
# Other architectures and compilers without the option (clang) are left as they are.
STRINGOPS := $(shell $(CC) -mstringop-strategy=libcall -E -x c /dev/null > /dev/null 2>&1 && \
	echo -mstringop-strategy=libcall)
SAN_FLAGS :=
ifeq ($(SAN),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
HARDEN := -fPIE
OPT := -O1 -g
endif
ifeq ($(SAN),thread)
SAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer
HARDEN := -fPIE
OPT := -O1 -g
endif

NEED_PKGS := $(call pc_missing,$(LIBS))
ifeq ($(NEED_PKGS),)
PC_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(foreach l,$(LIBS),$(call pc_name,$l)))
PC_LIBS := $(shell $(PKG_CONFIG) --libs $(foreach l,$(LIBS),$(call pc_name,$l)))
endif

CFLAGS ?=
LDFLAGS ?=
DATADIR ?= $(PREFIX)/share/tlbscope
ALL_CFLAGS := -std=gnu11 -D_GNU_SOURCE -pthread -DPLATFORM_DIR='"$(DATADIR)/platforms"' \
	-DSRC_PLATFORM_DIR='"$(CURDIR)/tuner/platforms"' $(OPT) $(STRINGOPS) $(WARN) $(HARDEN) \
	$(SAN_FLAGS) -MMD -MP $(PC_CFLAGS) $(CFLAGS)
ALL_LDFLAGS := -pie -pthread -Wl,-z,relro,-z,now $(SAN_FLAGS) $(LDFLAGS)

LIB_SRC := $(wildcard lib/*.c)
CORE_SRC := $(LIB_SRC) $(wildcard parsers/*.c) $(wildcard timeline/*.c) $(wildcard tuner/*.c) \
	$(wildcard analysis/*.c)
CLI_SRC := $(wildcard cli/*.c) $(wildcard dashboards/*.c) $(wildcard record/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(wildcard tests/unit/test-*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
MAN := $(wildcard man/*.1)
MAN7 := $(wildcard man/*.7)

.PHONY: all deps run check unit asan tsan valgrind install uninstall clean corpus check-deps bench \
	fuzz fuzz-build fuzz-bins

all: check-deps $(PROG)

check-deps:
ifneq ($(NEED_PKGS),)
	@echo "tlbscope: missing libraries; install them with:" >&2
	@echo "  apt-get install $(NEED_PKGS)" >&2
	@echo "(or run 'make run' / 'make check' as root, which installs them)" >&2
	@exit 1
endif

# Install what is missing (Debian packages, as root), then build in a fresh make so that
# pkg-config sees the new libraries.
deps:
	$(Q)scripts/deps.sh

run: deps
	$(Q)$(MAKE) --no-print-directory $(PROG)
	./$(PROG) report $(RUN_TRACE)
	./$(PROG) tune $(RUN_TRACE)

# check's own deps add clang (optional: tests/real/fuzz-smoke.sh skips without it), and only
# check runs the fuzz smoke: FUZZ_SMOKE_SECONDS per harness from the committed seeds, 0 none
check:
	$(Q)scripts/deps.sh check
	$(Q)$(MAKE) --no-print-directory $(PROG) unit
	$(Q)FUZZ_SMOKE_SECONDS=$(FUZZ_SMOKE_SECONDS) tests/run.sh $(BUILD) ./$(PROG)

asan: deps
	$(Q)$(MAKE) --no-print-directory SAN=1 BUILD=build-asan PROG=tlbscope-asan \
		tlbscope-asan unit
	$(Q)ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
		tests/run.sh build-asan ./tlbscope-asan

# the threads' tests under ThreadSanitizer: any race it sees fails the run (exit 66)
TSAN_TESTS := model-thread.sh jobs.sh export-perfetto.sh
tsan: deps
	$(Q)$(MAKE) --no-print-directory SAN=thread BUILD=build-tsan PROG=tlbscope-tsan \
		tlbscope-tsan unit
	$(Q)TSAN_OPTIONS=halt_on_error=1:exitcode=66 TESTS_REAL="$(TSAN_TESTS)" \
		TESTS_REAL_WHY="make tsan runs the tests of threads alone" \
		tests/run.sh build-tsan ./tlbscope-tsan

# valgrind is optional (Debian has none for riscv64): without it, skipped with the reason
valgrind: deps
	$(Q)if ! command -v valgrind > /dev/null; then \
		echo "make valgrind: skipped: valgrind is not installed" \
			"(optional; scripts/deps.sh installs it where Debian has it)"; exit 0; fi; \
	$(MAKE) --no-print-directory $(PROG) unit && \
	TLBSCOPE_WRAP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
		--suppressions=$(CURDIR)/tests/valgrind.supp --error-exitcode=99" \
		tests/run.sh $(BUILD) ./$(PROG)

$(PROG): $(CORE_OBJ) $(CLI_OBJ)
	$(quiet) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PC_LIBS) -lm

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(quiet) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

unit: $(UNIT_BIN) $(BUILD)/tests/shootdown

# bench/run.sh's floor: a bare libtracecmd iteration of a trace.dat; bench/jobs.sh's look
# at how far apart two threads are; the merge of many CPUs, heap against scan
bench: $(PROG) $(BUILD)/bench/floor $(BUILD)/bench/pingpong $(BUILD)/bench/merge
$(BUILD)/bench/floor: bench/floor.c
	@mkdir -p $(dir $@)
	$(quiet) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(PC_LIBS)
$(BUILD)/bench/pingpong: bench/pingpong.c
	@mkdir -p $(dir $@)
	$(quiet) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<
$(BUILD)/bench/merge: bench/merge.c $(BUILD)/parsers/merge.o $(BUILD)/lib/lib.o
	@mkdir -p $(dir $@)
	$(quiet) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ -lm

# loads of one file for the live tests: shootdown makes remote TLB flushes for sure;
# exec-thread (tests/real/record-tgid.sh) execs from threads that are not the leader
unit: $(BUILD)/tests/exec-thread
$(BUILD)/tests/shootdown $(BUILD)/tests/exec-thread: $(BUILD)/tests/%: tests/tools/%.c
	@mkdir -p $(dir $@)
	$(quiet) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -pthread -o $@ $<

# tests/real/live-tracefs.sh: an instance's buffer drained by top's live reader
unit: $(BUILD)/tests/live-drain
$(BUILD)/tests/live-drain: tests/tools/live-drain.c \
		$(patsubst %.c,$(BUILD)/%.o,$(wildcard record/*.c)) $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(quiet) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(PC_LIBS) -lm

# tests/fixtures/capture.sh: an instance's buffer to a trace.dat by record's own writer
unit: $(BUILD)/tests/extract
$(BUILD)/tests/extract: tests/tools/extract.c $(BUILD)/record/tracedat-write.o \
		$(BUILD)/record/session.o $(BUILD)/record/events.o $(BUILD)/record/btf.o \
		$(BUILD)/record/stream.o $(BUILD)/record/kprobe-drops.o $(BUILD)/record/messages.o \
		$(BUILD)/record/guard.o \
		$(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(quiet) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(PC_LIBS) -lm

$(BUILD)/tests/test-%: tests/unit/test-%.c $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(quiet) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) $(shell $(PKG_CONFIG) --cflags cmocka) $(ALL_LDFLAGS) \
		-o $@ $< $(CORE_OBJ) $(PC_LIBS) $(shell $(PKG_CONFIG) --libs cmocka) -lm

install: $(PROG)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(PROG) $(DESTDIR)$(BINDIR)/$(PROG)
	install -m 644 $(MAN) $(DESTDIR)$(MANDIR)/man1/
	install -d $(DESTDIR)$(MANDIR)/man7
	install -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7/
	install -d $(DESTDIR)$(DATADIR)/platforms
	install -m 644 tuner/platforms/*.json $(DESTDIR)$(DATADIR)/platforms/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/$(PROG)
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(MAN7)))
	rm -rf $(DESTDIR)$(DATADIR)

corpus:
	$(MAKE) -C corpus

# Fuzzing (tests/fuzz/README.md): libFuzzer harnesses built with clang, ASan and UBSan, one
# per reader, each through the timeline and the models.  FUZZ_SECONDS per harness; findings
# land in build-fuzz/findings/FORMAT/ and belong, once fixed, in tests/fuzz/regressions/.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 10
FUZZ_JOBS ?= 1
FUZZ_BUILD := build-fuzz
FUZZ_TARGETS := tracedat:trace.dat ftrace-text:ftrace-text jsonl:jsonl perf-text:perf-script
FUZZ_FLAGS := -std=gnu11 -D_GNU_SOURCE -pthread -O1 -g -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all -DTLBSCOPE_FUZZING \
	-DPLATFORM_DIR='"$(DATADIR)/platforms"' -DSRC_PLATFORM_DIR='"$(CURDIR)/tuner/platforms"' \
	$(PC_CFLAGS)
FUZZ_OBJ := $(CORE_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_BIN := $(foreach t,$(FUZZ_TARGETS),$(FUZZ_BUILD)/fuzz-$(firstword $(subst :, ,$t)))
.SECONDARY: $(FUZZ_OBJ)

fuzz-build: deps
	$(Q)scripts/deps.sh fuzz
	$(Q)$(MAKE) --no-print-directory fuzz-bins

# the harnesses alone, clang already there (tests/real/fuzz-smoke.sh)
fuzz-bins: $(FUZZ_BIN)

fuzz: fuzz-build
	$(Q)tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_JOBS)

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(quiet) FUZZCC $<
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(FUZZ_BUILD)/fuzz-%: tests/fuzz/fuzz-reader.c $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(quiet) FUZZLD $@
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer \
		-DFUZZ_FORMAT='"$(lastword $(subst :, ,$(filter $*:%,$(FUZZ_TARGETS))))"' \
		-o $@ $< $(FUZZ_OBJ) $(PC_LIBS) -lm

clean:
	rm -rf build build-asan build-tsan build-fuzz $(PROG) tlbscope-asan tlbscope-tsan

-include $(CORE_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(wildcard $(FUZZ_BUILD)/*/*.d) \
	$(wildcard $(BUILD)/tests/*.d $(BUILD)/bench/*.d)
