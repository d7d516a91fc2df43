// SPDX-License-Identifier: GPL-2.0
/*
 * insn-mark: exit at once.  Its first instruction sits at an address no
 * other program in the guest uses (the link puts its text there), and the
 * host's QEMU plugin host/qemu-plugin/insn-count.c, told that address,
 * writes a snapshot of its instruction counts each time it runs: a run of
 * this marker before and after a workload brackets what the guest executed
 * for it.
 */
void _start(void)
{
	asm volatile("mov $60, %%eax\n\txor %%edi, %%edi\n\tsyscall"
		     ::: "rax", "rdi", "rcx", "r11", "memory");
	__builtin_unreachable();
}
