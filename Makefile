# iomap direct-I/O fast path: build the patched linux-source-6.12, boot it
# in QEMU and test or measure it. See README.md.

SHELL := /bin/bash
SCRIPTS := host

.PHONY: all deps tree kernel kernel-debug initramfs settings bench-settings test bench \
	ladder check stack-check bisect-check am-check export dev-tree bench-seq bench-db soak \
	shell clean

all: test

deps:
	@$(SCRIPTS)/install-deps.sh

tree: deps
	@$(SCRIPTS)/prepare-tree.sh

kernel: tree
	@$(SCRIPTS)/build-kernel.sh

kernel-debug: tree
	@KERNEL_FLAVOUR=debug $(SCRIPTS)/build-kernel.sh

initramfs: deps
	@$(SCRIPTS)/build-initramfs.sh

# The kernels the suite boots: debug by default (what CI runs), lean (the
# kernel the bench boots) with TEST_KERNELS=lean, both with "lean debug".
TEST_KERNELS ?= debug
export TEST_KERNELS

# Bad TESTS or TEST_KERNELS fail here, before anything is built.
settings:
	@$(SCRIPTS)/check-settings.sh test

bench-settings:
	@$(SCRIPTS)/check-settings.sh bench

test: settings $(if $(filter lean,$(TEST_KERNELS)),kernel) \
	$(if $(filter debug,$(TEST_KERNELS)),kernel-debug) initramfs
	@$(SCRIPTS)/run-tests.sh

bench: bench-settings kernel initramfs
	@$(SCRIPTS)/run-bench.sh

# Sequential buffered throughput (exfat): SEQ_KERNELS="stock=... series=...".
bench-seq: kernel initramfs
	@$(SCRIPTS)/run-seq-bench.sh

# MariaDB and sysbench, the host's own, in the guest: DB_KERNELS="stock=... series=...".
bench-db: kernel initramfs
	@$(SCRIPTS)/install-deps.sh db
	@$(SCRIPTS)/run-db-bench.sh

# The model tester over many seeds, on the lean and the debug kernel.
soak: kernel kernel-debug initramfs
	@$(SCRIPTS)/run-soak.sh

# Builds its own trees (host/ladder.sh), so only the initramfs first.
ladder: bench-settings initramfs
	@$(SCRIPTS)/ladder.sh

check: tree
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

clean:
	@. $(SCRIPTS)/common.sh && rm -rf "$$BUILD_DIR" "$$LOG_DIR" "$$IMAGE_DIR"
