/*
 * A stand-in for libnvidia-ml.so.1 with the C signatures of NVIDIA's nvml.h, for testing our FFM
 * bindings where no GPU is present. Written for Quartermaster's tests; not NVIDIA code.
 * Three devices: 0 and 1 work (minors 0 and 1); 2 is "lost" (GetUUID returns GPU_IS_LOST).
 * Tests queue XID events with stub_push_xid(index, xid) (or stub_push_instance_xid(index, xid, gi),
 * naming a GPU instance) and make the wait fail with stub_fail_wait(rc).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <errno.h>

typedef struct { int index; } dev_t_;
typedef dev_t_ *nvmlDevice_t;
typedef struct { int unused; } set_t_;
typedef set_t_ *nvmlEventSet_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct {
  nvmlDevice_t device; unsigned long long eventType; unsigned long long eventData;
  unsigned int gpuInstanceId; unsigned int computeInstanceId;
} nvmlEventData_t;
typedef struct {
  char busIdLegacy[16]; unsigned int domain, bus, device, pciDeviceId, pciSubSystemId; char busId[32];
} nvmlPciInfo_t;

static dev_t_ devices[3] = {{0}, {1}, {2}};
static set_t_ the_set;
static int inits;
static unsigned long long registered[3];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int queue_dev[64]; static unsigned long long queue_xid[64]; static unsigned int queue_gi[64];
static int q_head, q_tail;
static int wait_fail;

int nvmlInit_v2(void) { inits++; return 0; }
int nvmlShutdown(void) { if (inits == 0) return 1; inits--; return 0; }
const char *nvmlErrorString(int rc) {
  switch (rc) { case 0: return "Success"; case 1: return "Uninitialized"; case 3: return "Not Supported";
    case 10: return "Timeout"; case 15: return "GPU is lost"; default: return "Unknown Error"; }
}
int nvmlDeviceGetCount_v2(unsigned int *count) { if (!inits) return 1; *count = 3; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d) {
  if (!inits) return 1;
  if (i >= 3) return 2;
  *d = &devices[i];
  return 0;
}
int nvmlDeviceGetUUID(nvmlDevice_t d, char *buf, unsigned int len) {
  if (d->index == 2) return 15;
  snprintf(buf, len, "GPU-5705b000-0000-4000-8000-00000000000%d", d->index); return 0;
}
int nvmlDeviceGetName(nvmlDevice_t d, char *buf, unsigned int len) { snprintf(buf, len, "NVIDIA Stub H100"); return 0; }
int nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int *minor) { *minor = d->index; return 0; }
int nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
  m->total = 85520809984ULL + d->index; m->free = 1; m->used = 2; return 0;
}
int nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p) {
  memset(p, 0, sizeof *p); snprintf(p->busId, sizeof p->busId, "00000000:%02X:00.0", 0x18 + d->index); return 0;
}
int nvmlEventSetCreate(nvmlEventSet_t *s) { *s = &the_set; return 0; }
int nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t s) {
  registered[d->index] = types;
  return 0;
}
int nvmlEventSetWait_v2(nvmlEventSet_t s, nvmlEventData_t *data, unsigned int timeoutms) {
  struct timespec until; clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += timeoutms / 1000; until.tv_nsec += (long) (timeoutms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
  pthread_mutex_lock(&lock);
  while (q_head == q_tail && !wait_fail) {
    if (pthread_cond_timedwait(&cond, &lock, &until) == ETIMEDOUT) { pthread_mutex_unlock(&lock); return 10; }
  }
  if (wait_fail) { int rc = wait_fail; pthread_mutex_unlock(&lock); return rc; }
  data->device = &devices[queue_dev[q_head % 64]]; data->eventType = 0x8ULL; data->eventData = queue_xid[q_head % 64];
  data->gpuInstanceId = queue_gi[q_head % 64];
  data->computeInstanceId = queue_gi[q_head % 64] == 0xFFFFFFFFu ? 0xFFFFFFFFu : 0; q_head++;
  pthread_mutex_unlock(&lock);
  return 0;
}
int nvmlEventSetFree(nvmlEventSet_t s) { return 0; }

/* Test controls. */
void stub_push_instance_xid(int index, unsigned long long xid, unsigned int gi) {
  pthread_mutex_lock(&lock); queue_dev[q_tail % 64] = index; queue_xid[q_tail % 64] = xid;
  queue_gi[q_tail % 64] = gi; q_tail++;
  pthread_cond_broadcast(&cond); pthread_mutex_unlock(&lock);
}
void stub_push_xid(int index, unsigned long long xid) { stub_push_instance_xid(index, xid, 0xFFFFFFFFu); }
void stub_fail_wait(int rc) { pthread_mutex_lock(&lock); wait_fail = rc; pthread_cond_broadcast(&cond); pthread_mutex_unlock(&lock); }
int stub_inits(void) { return inits; }
unsigned long long stub_registered(int index) { return registered[index]; }
void stub_reset(void) {
  pthread_mutex_lock(&lock); q_head = q_tail = 0; wait_fail = 0; pthread_mutex_unlock(&lock);
}
