# iomap direct-I/O fast path: build the patched linux-source-6.12, boot it
# in QEMU and test or measure it. See README.md.

SHELL := /bin/bash
SCRIPTS := host

SETTINGS := test bench ladder db seq soak replay

.PHONY: all deps deps-db tree kernel kernel-debug initramfs $(SETTINGS:%=settings-%) \
	test bench ladder check stack-check bisect-check am-check export dev-tree bench-seq \
	bench-db soak replay shell clean

# Every setting's default, and what it does (the scripts read it too).
include config/defaults.mk

# A bare make lists the commands (README.md's table) rather than starting
# the long suite.
all:
	@sed -n '/^## Targets/,/^## /{/^|/p}' README.md

# A variable on make's command line that is no setting is a typo (TEST=
# for TESTS=): stop before anything runs, naming the closest setting.
command_line_vars := $(foreach var,$(.VARIABLES),$(if $(filter command line,$(origin $(var))),$(var)))
ifneq ($(command_line_vars),)
ifneq ($(shell $(SCRIPTS)/check-settings.sh command-line $(command_line_vars) 2>&1 >/dev/null),)
$(error $(shell $(SCRIPTS)/check-settings.sh command-line $(command_line_vars) 2>&1 >/dev/null))
endif
endif

# The settings checks of the commands make was asked for. Every step that does work waits for them, so a bad value
# fails first whatever -j says.
settings_of_test := settings-test
settings_of_bench := settings-bench
settings_of_ladder := settings-ladder
settings_of_bench-db := settings-db
settings_of_bench-seq := settings-seq
settings_of_soak := settings-soak
settings_of_replay := settings-replay
goal_settings := $(sort $(foreach goal,$(MAKECMDGOALS),$(settings_of_$(goal))))

# kernels_named SETTING: make's steps for the kernels that a *_KERNELS
# setting names as "lean" or "debug" (LABEL=lean, LABEL=lean:OPS), and
# only those: a bzImage given by path is not built (kernel_images: each
# item's BZIMAGE).
kernel_images = $(foreach item,$(1),$(firstword $(subst :, ,$(lastword $(subst =, ,$(item))))))
kernels_named = $(if $(filter lean,$(call kernel_images,$(1))),kernel) \
	$(if $(filter debug,$(call kernel_images,$(1))),kernel-debug)

deps deps-db tree kernel kernel-debug initramfs: | $(goal_settings)

deps:
	@$(SCRIPTS)/install-deps.sh

# The database bench runs the host's MariaDB and sysbench in the guest.
deps-db:
	@$(SCRIPTS)/install-deps.sh db

tree: deps
	@$(SCRIPTS)/prepare-tree.sh

kernel: tree
	@$(SCRIPTS)/build-kernel.sh

kernel-debug: tree
	@KERNEL_FLAVOUR=debug $(SCRIPTS)/build-kernel.sh

initramfs: deps
	@$(SCRIPTS)/build-initramfs.sh

# Each command's bad settings fail here, before anything is built.
$(SETTINGS:%=settings-%):
	@$(SCRIPTS)/check-settings.sh $(@:settings-%=%)

# TEST_KERNELS picks the kernels to build.
test: settings-test $(if $(filter lean,$(TEST_KERNELS)),kernel) \
	$(if $(filter debug,$(TEST_KERNELS)),kernel-debug) initramfs
	@$(SCRIPTS)/run-tests.sh

bench: settings-bench kernel initramfs
	@$(SCRIPTS)/run-bench.sh

# Sequential buffered throughput (exfat): SEQ_KERNELS="stock=... series=...".
bench-seq: settings-seq $(call kernels_named,$(SEQ_KERNELS)) initramfs
	@$(SCRIPTS)/run-seq-bench.sh

# MariaDB and sysbench, the host's own, in the guest: DB_KERNELS="stock=... series=...".
bench-db: settings-db deps-db $(call kernels_named,$(DB_KERNELS)) initramfs
	@$(SCRIPTS)/run-db-bench.sh

# The model tester over many seeds, on the lean and the debug kernel.
soak: settings-soak $(call kernels_named,$(SOAK_KERNELS)) initramfs
	@$(SCRIPTS)/run-soak.sh

# fsmodel logs (a soak's shrunk failures) run again: REPLAY_LOGS=...
replay: settings-replay $(call kernels_named,$(REPLAY_KERNELS)) initramfs
	@$(SCRIPTS)/run-replay.sh

# Builds its own trees (host/ladder.sh), so only the initramfs first.
ladder: settings-ladder initramfs
	@$(SCRIPTS)/ladder.sh

check: tree
	@$(SCRIPTS)/settings-check.sh
	@$(SCRIPTS)/checkpatch.sh
	@$(SCRIPTS)/am-check.sh
	@$(SCRIPTS)/stack-check.sh

stack-check: tree
	@$(SCRIPTS)/stack-check.sh

bisect-check: tree
	@$(SCRIPTS)/bisect-check.sh

am-check:
	@$(SCRIPTS)/am-check.sh

# The development tree (topic branches, notes kept) from patches/, and back.
dev-tree: tree
	@$(SCRIPTS)/import-patches.sh

export:
	@$(SCRIPTS)/export-patches.sh

shell: kernel initramfs
	@host/boot.sh shell

# Everything the cache holds but the prepared tree, ccache and the
# development tree (make dev-tree: work of yours).
clean:
	@. $(SCRIPTS)/common.sh && cd "$$CACHE_DIR" 2>/dev/null && \
		rm -rf build build-* bisect stock ladder kernels logs images \
			initramfs* tools-bin insn-count.so bench-share *-runs \
			am-check run.lock run.owner
