// A sampling profiler for the device machine, which has no perf: preloaded into a process, it
// takes each thread's interrupted instruction pointer every SAMPLER_US microseconds of wall
// time (a CLOCK_MONOTONIC timer per thread, made for the threads that pthread_create starts:
// ITIMER_PROF ticks at the kernel's HZ, a few hundred samples a second) and at exit writes one
// line per address, "count object offset", to $SAMPLER_OUT. A thread that waits is sampled
// where it waits (libgomp, libc), so the objects' shares are of wall time over all threads.
// Symbolize here, against the unstripped build the prebuilt archive was packed from:
// tools/micro/sampler_report.py.
//   gcc -O2 -shared -fPIC -o sampler.so tools/micro/sampler.c -ldl -lrt
//   SAMPLER_OUT=$OUT/samples.txt LD_PRELOAD=$PWD/sampler.so ./bench ...
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define MAX_SAMPLES (1 << 22)
static unsigned long samples[MAX_SAMPLES];
static volatile long taken;
static void install(void);
static volatile int stopped;
static long period_us = 200;

static void on_prof(int sig, siginfo_t *si, void *uc_) {
  (void)sig, (void)si;
  ucontext_t *uc = (ucontext_t *)uc_;
  long i = __atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED);
  if (!stopped && i < MAX_SAMPLES) samples[i] = (unsigned long)uc->uc_mcontext.gregs[REG_RIP];
}

static int by_address(const void *a, const void *b) {
  unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
  return x < y ? -1 : x > y;
}

// A timer for the calling thread, whose expiry signals this thread only.
static void arm_this_thread(void) {
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGPROF;
  ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
  timer_t t;
  if (timer_create(CLOCK_MONOTONIC, &ev, &t)) return;
  struct itimerspec its = {{0, period_us * 1000}, {0, period_us * 1000}};
  timer_settime(t, 0, &its, NULL);
}

struct start_args { void *(*fn)(void *); void *arg; };
static void *started(void *p) {
  struct start_args a = *(struct start_args *)p;
  free(p);
  arm_this_thread();
  return a.fn(a.arg);
}
int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
  static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
  if (!real) real = dlsym(RTLD_NEXT, "pthread_create");
  install();
  struct start_args *a = malloc(sizeof *a);
  if (!a) return real(t, attr, fn, arg);
  a->fn = fn, a->arg = arg;
  return real(t, attr, started, a);
}

__attribute__((destructor)) static void report(void) {
  stopped = 1;
  const char *path = getenv("SAMPLER_OUT");
  FILE *f = fopen(path ? path : "samples.txt", "w");
  if (!f) return;
  long n = taken < MAX_SAMPLES ? taken : MAX_SAMPLES;
  qsort(samples, (size_t)n, sizeof samples[0], by_address);
  for (long i = 0; i < n;) {
    long j = i;
    while (j < n && samples[j] == samples[i]) ++j;
    Dl_info d;
    if (dladdr((void *)samples[i], &d) && d.dli_fname)
      fprintf(f, "%ld %s 0x%lx\n", j - i, d.dli_fname, samples[i] - (unsigned long)d.dli_fbase);
    else
      fprintf(f, "%ld ? 0x%lx\n", j - i, samples[i]);
    i = j;
  }
  fclose(f);
}

// The handler and period, before any timer (a library's constructor may start threads before
// this library's constructor runs).
static void install(void) {  // every time: a thread must never arm a timer before the handler
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_prof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, NULL);
  const char *us = getenv("SAMPLER_US");
  if (us && atol(us) > 0 && atol(us) < 1000000) period_us = atol(us);
}

__attribute__((constructor)) static void start(void) {
  install();
  arm_this_thread();
}
