// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count: a QEMU TCG plugin that counts how often every guest
 * instruction executes, exactly, and writes the counts of the kernel's
 * instructions (and the total of all others) to a file each time the guest
 * runs the marker program (guest/tools/insn-mark.c) whose first
 * instruction is at address MARK (one snapshot per marker run).  The
 * difference of two snapshots is what the guest executed between two
 * markers, instruction by instruction: unlike sampling, nothing is
 * attributed to the wrong instruction.  Under -icount guest time advances
 * by these instructions and also over idle periods, so a bench cell's
 * guest time per read can exceed the count (results/METHOD.md, "Exact
 * instruction profiles").
 *
 *   qemu-system-x86_64 ... -plugin insn-count.so,mark=0xADDR,out=DIR
 *
 * writes DIR/snap-1.txt, DIR/snap-2.txt, ...: "ADDRESS COUNT" per kernel
 * instruction that ran, in hex and decimal, then "user COUNT": every
 * instruction outside the kernel.  The counters are plain adds that QEMU
 * inlines into each translation block, so they are exact only with one TCG
 * thread, which -icount implies: use it with -icount only.  A block counts
 * whole when it is entered; an exception in its middle (a fault)
 * over-counts the rest of it, which the hot paths measured here do not
 * take.
 *
 * QEMU's plugin API of the version this machine's QEMU (7.2) implements;
 * only the calls used are declared.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t,
					       struct qemu_plugin_tb *);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int, void *);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t, void *);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t,
					   qemu_plugin_vcpu_tb_trans_cb_t);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *,
					  qemu_plugin_vcpu_udata_cb_t,
					  enum qemu_plugin_cb_flags, void *);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *,
					      enum qemu_plugin_op, void *,
					      uint64_t);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, qemu_plugin_udata_cb_t,
				    void *);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *,
						 size_t);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *);
void qemu_plugin_outs(const char *);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* Kernel text on x86-64 lies in the top 2 GiB of the address space. */
#define KERNEL_START 0xffffffff80000000ULL

/* One translation block as translated: where its instructions are, and
 * how often it ran (QEMU adds 1 per run; a block translated again gets a
 * record of its own). */
struct block {
	uint64_t runs;
	struct block *next;
	size_t n;
	uint64_t vaddr[];
};

static struct block *kernel_blocks;
/* Blocks outside the kernel: counted, their instructions not told apart. */
static struct block *user_blocks;
static uint64_t mark;
static const char *out_dir;
static unsigned int snapshots;

struct count {
	uint64_t vaddr, runs;
};

static int by_vaddr(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	return (x->vaddr > y->vaddr) - (x->vaddr < y->vaddr);
}

/* Writes the cumulative counts: every kernel instruction's, summed over
 * the blocks it was translated into. */
static void snapshot(unsigned int vcpu, void *udata)
{
	size_t n = 0, i, j = 0;
	struct count *c;
	struct block *b;
	uint64_t user = 0;
	char path[4096];
	FILE *f;

	(void)vcpu;
	(void)udata;
	for (b = kernel_blocks; b; b = b->next)
		if (b->runs)
			n += b->n;
	c = malloc((n ? n : 1) * sizeof(*c));
	if (!c)
		abort();
	for (b = kernel_blocks; b; b = b->next)
		for (i = 0; b->runs && i < b->n; i++)
			c[j++] = (struct count){ b->vaddr[i], b->runs };
	qsort(c, n, sizeof(*c), by_vaddr);
	for (b = user_blocks; b; b = b->next)
		user += b->runs * b->n;
	snprintf(path, sizeof(path), "%s/snap-%u.txt", out_dir, ++snapshots);
	f = fopen(path, "w");
	if (!f) {
		qemu_plugin_outs("insn-count: cannot write a snapshot\n");
		abort();
	}
	for (i = 0; i < n; i++) {
		uint64_t runs = c[i].runs;

		while (i + 1 < n && c[i + 1].vaddr == c[i].vaddr)
			runs += c[++i].runs;
		fprintf(f, "%" PRIx64 " %" PRIu64 "\n", c[i].vaddr, runs);
	}
	fprintf(f, "user %" PRIu64 "\n", user);
	fclose(f);
	free(c);
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	uint64_t start = qemu_plugin_tb_vaddr(tb);
	bool kernel = start >= KERNEL_START;
	struct block *b;

	(void)id;
	b = calloc(1, sizeof(*b) + (kernel ? n : 0) * sizeof(b->vaddr[0]));
	if (!b)
		abort();
	b->n = n;
	for (i = 0; kernel && i < n; i++)
		b->vaddr[i] = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));
	if (kernel) {
		b->next = kernel_blocks;
		kernel_blocks = b;
	} else {
		b->next = user_blocks;
		user_blocks = b;
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->runs, 1);
	if (start == mark)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, snapshot,
						     QEMU_PLUGIN_CB_NO_REGS,
						     NULL);
}

__attribute__((visibility("default"))) int
qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
		    char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "mark=", 5))
			mark = strtoull(argv[i] + 5, NULL, 0);
		else if (!strncmp(argv[i], "out=", 4))
			out_dir = argv[i] + 4;
	}
	if (!mark || !out_dir) {
		qemu_plugin_outs("insn-count: needs mark=ADDRESS and out=DIR\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	return 0;
}
