/*
 * A stand-in for libnvidia-ml.so.1 with the C signatures of NVIDIA's nvml.h, for testing our FFM
 * bindings where no GPU is present. Written for Quartermaster's tests; not NVIDIA code.
 * Three devices: 0 and 1 work (minors 0 and 1); 2 is "lost" (GetUUID returns GPU_IS_LOST).
 * Tests queue XID events with stub_push_xid(index, xid) (or stub_push_instance_xid(index, xid, gi),
 * naming a GPU instance) and make the wait fail with stub_fail_wait(rc).
 * MIG: device 0 has an H200's MIG profiles (off until set on); 1 and 2 have no MIG. Instances follow
 * the driver's rules as the tests need them: overlap is INSUFFICIENT_RESOURCES, a GPU instance with
 * a compute instance in it (or one a test holds) is IN_USE. Tests refuse mode changes and creation
 * with stub_mig_refuse(rc), leave a mode change pending with stub_mig_needs_reset(1), and hold an
 * instance open with stub_mig_hold(gi id, 1).
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
int nvmlDeviceGetUUID(nvmlDevice_t d, char *buf, unsigned int len);
int stub_mig_uuid(nvmlDevice_t d, char *buf, unsigned int len);
int nvmlDeviceGetUUID(nvmlDevice_t d, char *buf, unsigned int len) {
  if (d->index >= 100) return stub_mig_uuid(d, buf, len);
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
void stub_mig_reset(void);
void stub_reset(void) {
  pthread_mutex_lock(&lock); q_head = q_tail = 0; wait_fail = 0; pthread_mutex_unlock(&lock);
  stub_mig_reset();
}

/* MIG, on device 0 only. */
typedef struct { unsigned int start, size; } nvmlGpuInstancePlacement_t;
typedef struct {
  unsigned int version, id, isP2pSupported, sliceCount, instanceCount, multiprocessorCount, copyEngineCount,
      decoderCount, encoderCount, jpegCount, ofaCount;
  unsigned long long memorySizeMB; char name[96];
} nvmlGpuInstanceProfileInfo_v2_t;
typedef struct { unsigned int id, sliceCount, instanceCount, mp, ce, dec, enc, jpg, ofa; } nvmlComputeInstanceProfileInfo_t;
typedef struct gi_ { int used, id, profile, start, size, slices, held, ci_used, ci_profile, ci_slices; dev_t_ mig; } gi_t;
typedef gi_t *nvmlGpuInstance_t;
typedef struct { nvmlDevice_t device; unsigned int id, profileId; nvmlGpuInstancePlacement_t placement; } nvmlGpuInstanceInfo_t;
typedef struct { gi_t *gi; } ci_t;
typedef ci_t *nvmlComputeInstance_t;
typedef struct {
  nvmlDevice_t device; nvmlGpuInstance_t gpuInstance; unsigned int id, profileId; nvmlGpuInstancePlacement_t placement;
} nvmlComputeInstanceInfo_t;

/* Profile index = profile id here, as on the drivers we know; slices, instances, memory span, MiB, name, starts. */
typedef struct { int index, slices, count, size; unsigned long long mb; const char *name; int starts[8], nstarts; } profile_t;
static const profile_t profiles[] = {
  {0, 1, 7, 1, 16384, "MIG 1g.18gb", {0, 1, 2, 3, 4, 5, 6}, 7},
  {1, 2, 3, 2, 32768, "MIG 2g.35gb", {0, 2, 4}, 3},
  {2, 3, 2, 4, 71424, "MIG 3g.71gb", {0, 4}, 2},
  {3, 4, 1, 4, 71424, "MIG 4g.71gb", {0}, 1},
  {4, 7, 1, 8, 144384, "MIG 7g.141gb", {0}, 1},
  {7, 1, 1, 1, 16384, "MIG 1g.18gb+me", {0, 1, 2, 3, 4, 5, 6}, 7},
  {9, 1, 4, 2, 32768, "MIG 1g.35gb", {0, 2, 4, 6}, 4},
};
#define NPROFILES (int) (sizeof profiles / sizeof profiles[0])
static const int ci_slices[] = {1, 2, 3, 4, 7}; /* compute instance profile index -> slices */
static int mig_current, mig_pending, mig_refuse, mig_needs_reset;
static gi_t gis[8];
static ci_t cis[8];

void stub_mig_reset(void) {
  mig_current = mig_pending = mig_refuse = mig_needs_reset = 0; memset(gis, 0, sizeof gis);
}
void stub_mig_refuse(int rc) { mig_refuse = rc; }
void stub_mig_needs_reset(int on) { mig_needs_reset = on; }
void stub_mig_hold(int id, int on) { for (int i = 0; i < 8; i++) if (gis[i].used && gis[i].id == id) gis[i].held = on; }
int stub_mig_instances(void) { int n = 0; for (int i = 0; i < 8; i++) n += gis[i].used; return n; }

static const profile_t *profile_by_id(unsigned int id) {
  for (int i = 0; i < NPROFILES; i++) if (profiles[i].index == (int) id) return &profiles[i];
  return 0;
}
int nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *current, unsigned int *pending) {
  if (d->index != 0) return 3;
  *current = mig_current; *pending = mig_pending; return 0;
}
int nvmlDeviceSetMigMode(nvmlDevice_t d, unsigned int mode, int *activation) {
  if (d->index != 0) return 3;
  if (mig_refuse) return mig_refuse;
  if (!mode && stub_mig_instances()) { *activation = 19; return 0; }
  mig_pending = mode;
  if (mig_needs_reset) { *activation = 16; return 0; }
  mig_current = mode; *activation = 0; return 0;
}
int nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t d, unsigned int index, nvmlGpuInstanceProfileInfo_v2_t *info) {
  if (d->index != 0 || !mig_current) return 3;
  if (info->version != (sizeof *info | (2u << 24))) return 25;
  if (index >= 10) return 2;
  const profile_t *p = profile_by_id(index);
  if (!p) return 3;
  memset(info, 0, sizeof *info); info->version = sizeof *info | (2u << 24);
  info->id = p->index; info->sliceCount = p->slices; info->instanceCount = p->count; info->memorySizeMB = p->mb;
  snprintf(info->name, sizeof info->name, "%s", p->name);
  return 0;
}
int nvmlDeviceGetGpuInstancePossiblePlacements_v2(nvmlDevice_t d, unsigned int id, nvmlGpuInstancePlacement_t *out, unsigned int *count) {
  const profile_t *p = profile_by_id(id);
  if (d->index != 0 || !mig_current || !p) return 3;
  if (out) for (int i = 0; i < p->nstarts && i < (int) *count; i++) { out[i].start = p->starts[i]; out[i].size = p->size; }
  *count = p->nstarts; return 0;
}
static unsigned int mask_of(int start, int size) { return ((1u << size) - 1) << start; }
int nvmlDeviceCreateGpuInstanceWithPlacement(nvmlDevice_t d, unsigned int id, const nvmlGpuInstancePlacement_t *pl, nvmlGpuInstance_t *out) {
  const profile_t *p = profile_by_id(id);
  if (d->index != 0 || !mig_current) return 3;
  if (mig_refuse) return mig_refuse;
  if (!p || (int) pl->size != p->size) return 2;
  int ok = 0; for (int i = 0; i < p->nstarts; i++) ok |= p->starts[i] == (int) pl->start;
  if (!ok) return 2;
  int slices = p->slices; unsigned int used = 0; int free_slot = -1, id_taken[16] = {0};
  for (int i = 0; i < 8; i++) {
    if (gis[i].used) { used |= mask_of(gis[i].start, gis[i].size); slices += gis[i].slices; id_taken[gis[i].id] = 1; }
    else if (free_slot < 0) free_slot = i;
  }
  if ((used & mask_of(pl->start, pl->size)) || slices > 7 || free_slot < 0) return 23;
  int gid = 1; while (id_taken[gid]) gid++;
  gi_t *g = &gis[free_slot]; memset(g, 0, sizeof *g);
  g->used = 1; g->id = gid; g->profile = id; g->start = pl->start; g->size = pl->size; g->slices = p->slices;
  g->mig.index = 100 + free_slot; *out = g; return 0;
}
int nvmlDeviceGetGpuInstances(nvmlDevice_t d, unsigned int id, nvmlGpuInstance_t *out, unsigned int *count) {
  if (d->index != 0 || !mig_current) return 3;
  unsigned int n = 0;
  for (int i = 0; i < 8; i++) if (gis[i].used && gis[i].profile == (int) id) { if (n < *count) out[n] = &gis[i]; n++; }
  *count = n; return 0;
}
int nvmlDeviceGetGpuInstanceById(nvmlDevice_t d, unsigned int id, nvmlGpuInstance_t *out) {
  if (d->index != 0 || !mig_current) return 3;
  for (int i = 0; i < 8; i++) if (gis[i].used && gis[i].id == (int) id) { *out = &gis[i]; return 0; }
  return 6;
}
int nvmlGpuInstanceGetInfo(nvmlGpuInstance_t g, nvmlGpuInstanceInfo_t *info) {
  info->device = &devices[0]; info->id = g->id; info->profileId = g->profile;
  info->placement.start = g->start; info->placement.size = g->size; return 0;
}
int nvmlGpuInstanceDestroy(nvmlGpuInstance_t g) {
  if (!g->used) return 2;
  if (g->held || g->ci_used) return 19;
  g->used = 0; return 0;
}
int nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t g, unsigned int index, unsigned int eng, nvmlComputeInstanceProfileInfo_t *info) {
  if (index >= 8 || eng != 0) return 2;
  if (index >= 5 || ci_slices[index] > g->slices) return 3;
  memset(info, 0, sizeof *info);
  info->id = index; info->sliceCount = ci_slices[index]; info->instanceCount = g->slices / ci_slices[index]; return 0;
}
int nvmlGpuInstanceCreateComputeInstance(nvmlGpuInstance_t g, unsigned int id, nvmlComputeInstance_t *out) {
  if (id >= 5 || ci_slices[id] > g->slices) return 2;
  if (g->ci_used) return 23;
  g->ci_used = 1; g->ci_profile = id; g->ci_slices = ci_slices[id];
  cis[g - gis].gi = g; *out = &cis[g - gis]; return 0;
}
int nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t g, unsigned int id, nvmlComputeInstance_t *out, unsigned int *count) {
  unsigned int n = 0;
  if (g->ci_used && g->ci_profile == (int) id) { if (*count > 0) { cis[g - gis].gi = g; out[0] = &cis[g - gis]; } n = 1; }
  *count = n; return 0;
}
int nvmlGpuInstanceGetComputeInstanceById(nvmlGpuInstance_t g, unsigned int id, nvmlComputeInstance_t *out) {
  if (!g->ci_used || id != 0) return 6;
  cis[g - gis].gi = g; *out = &cis[g - gis]; return 0;
}
int nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t c, nvmlComputeInstanceInfo_t *info) {
  info->device = &devices[0]; info->gpuInstance = c->gi; info->id = 0; info->profileId = c->gi->ci_profile;
  info->placement.start = 0; info->placement.size = c->gi->ci_slices; return 0;
}
int nvmlComputeInstanceDestroy(nvmlComputeInstance_t c) {
  if (!c->gi->ci_used) return 2;
  if (c->gi->held) return 19;
  c->gi->ci_used = 0; return 0;
}
int nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *count) { *count = d->index == 0 ? 7 : 0; return 0; }
int nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int index, nvmlDevice_t *out) {
  if (d->index != 0) return 3;
  unsigned int n = 0;
  for (int i = 0; i < 8; i++) if (gis[i].used && gis[i].ci_used) { if (n == index) { *out = &gis[i].mig; return 0; } n++; }
  return 6;
}
int nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id) {
  if (d->index < 100) return 3;
  *id = gis[d->index - 100].id; return 0;
}
int nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int *id) {
  if (d->index < 100) return 3;
  *id = 0; return 0;
}
int stub_mig_uuid(nvmlDevice_t d, char *buf, unsigned int len) {
  snprintf(buf, len, "MIG-5705b000-0000-4000-8000-0000000000%02d", gis[d->index - 100].id); return 0;
}
