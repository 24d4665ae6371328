// SPDX-License-Identifier: GPL-2.0-only
/*
 * Processes whose exec comes from a thread that is not the leader: each child starts a
 * thread and the thread execs /bin/true.  The kernel's de_thread() gives the thread the
 * leader's pid before the exec's event, whose old_pid is the thread's own.
 *   usage: exec-thread COUNT
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *run(void *arg)
{
	execl("/bin/true", "true", (char *)NULL);
	perror("exec-thread: /bin/true");
	_exit(1);
	return arg;
}

int main(int argc, char **argv)
{
	int count = argc == 2 ? atoi(argv[1]) : 0;

	if (count <= 0) {
		fprintf(stderr, "usage: exec-thread COUNT\n");
		return 2;
	}
	for (int i = 0; i < count; i++) {
		int status;
		pid_t p = fork();

		if (p < 0) {
			perror("exec-thread: fork");
			return 1;
		}
		if (!p) {
			pthread_t t;

			if (pthread_create(&t, NULL, run, NULL))
				_exit(1);
			for (;;)
				pause();	/* the exec ends this thread too */
		}
		if (waitpid(p, &status, 0) != p || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	}
	return 0;
}
