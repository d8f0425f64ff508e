/* Minimal pause: sleeps until SIGINT/SIGTERM, reaps zombies on SIGCHLD. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void sigdown(int s) { (void)s; _exit(0); }
static void sigreap(int s) { (void)s; while (waitpid(-1, NULL, WNOHANG) > 0) ; }
int main(void) {
  struct sigaction a = {0}, r = {0};
  a.sa_handler = sigdown; sigaction(SIGINT, &a, NULL); sigaction(SIGTERM, &a, NULL);
  r.sa_handler = sigreap; r.sa_flags = SA_NOCLDSTOP; sigaction(SIGCHLD, &r, NULL);
  for (;;) pause();
  return 1;
}
