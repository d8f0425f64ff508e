#!/usr/bin/env bash
# The real NVML MIG path on a GPU machine (the device machine's H200): NvmlMigHardwareTest, which
# reads the MIG mode, NVML's profiles (matched onto MigGeometry by slices) and existing instances,
# then creates 1g at each placement and a 3g, sees an overlap refused and destroys them, switching
# MIG on only if permitted and back off after (where it is not permitted, the refusal is checked).
#
# The device machine has neither Java nor Maven, so it runs in two steps:
#   scripts/device-mig-check.sh pack   here: builds the agent's tests offline and packs them with a
#                                      small jlinked Java runtime into agent/target/device-mig.tar.xz
#                                      (ignored by git, about 20 MiB: the tree that travels stays
#                                      under the device tool's 64 MiB)
#   scripts/device-mig-check.sh run    there, via the device tool's run, in about a minute:
#     run(command="scripts/device-mig-check.sh run", carry=["agent/target/device-mig.tar.xz"],
#         timeout_s=300)
# Any other test class can be named as a second argument to run (NvmlMigStubTest needs gcc).
set -euo pipefail
cd "$(dirname "$0")/.."
pack=agent/target/device-mig
archive=$pack.tar.xz
test_class=${2:-dev.quartermaster.agent.mig.NvmlMigHardwareTest}

case "${1:-}" in
pack)
  : "${JAVA_HOME:=/usr/lib/jvm/temurin-25-jdk-amd64}"
  ./mvnw -B -ntp -o -q -pl agent -am test-compile
  ./mvnw -B -ntp -o -q -pl agent dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile=target/device-mig-classpath.txt
  rm -rf "$pack" && mkdir -p "$pack/lib" "$pack/launcher"
  # Only what the MIG tests reach: the tests' own libraries, not the agent's network stack.
  tr ':' '\n' <agent/target/device-mig-classpath.txt |
    grep -E '/(junit|opentest4j|apiguardian|assertj|jackson|slf4j)' |
    xargs -I{} cp {} "$pack/lib/"
  for m in api core agent; do
    cp -r "$m/target/classes" "$pack/$m-classes"
  done
  cp -r agent/target/test-classes "$pack/agent-test-classes"
  cat >"$pack/launcher/MigCheck.java" <<'JAVA'
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

/** Runs one test class and says, per test, what became of it (JUnit's console is not packed). */
public class MigCheck {
  public static void main(String[] args) {
    var summary = new SummaryGeneratingListener();
    var report =
        new TestExecutionListener() {
          @Override
          public void executionSkipped(TestIdentifier test, String reason) {
            System.out.println("SKIPPED " + test.getDisplayName() + ": " + reason);
          }

          @Override
          public void executionFinished(TestIdentifier test, TestExecutionResult result) {
            if (test.isTest()) {
              System.out.println(result.getStatus() + " " + test.getDisplayName()
                  + result.getThrowable().map(t -> ": " + t).orElse(""));
            }
          }
        };
    LauncherFactory.create().execute(
        LauncherDiscoveryRequestBuilder.request().selectors(selectClass(args[0])).build(),
        summary, report);
    var out = new PrintWriter(System.out);
    summary.getSummary().printTo(out);
    summary.getSummary().printFailuresTo(out, 20);
    out.flush();
    System.exit(summary.getSummary().getTotalFailureCount() == 0 ? 0 : 1);
  }
}
JAVA
  "$JAVA_HOME/bin/javac" -d "$pack/launcher" -cp "$pack/lib/*" "$pack/launcher/MigCheck.java"
  "$JAVA_HOME/bin/jlink" --add-modules java.base,java.logging,jdk.unsupported \
    --strip-debug --no-header-files --no-man-pages --compress zip-9 --output "$pack/jre"
  tar -C "$(dirname "$pack")" -cJf "$archive" "$(basename "$pack")"
  du -sh "$archive"
  ;;
run)
  [ -f "$archive" ] || { echo "no $archive: run 'scripts/device-mig-check.sh pack' here first, then carry it" >&2; exit 2; }
  pack=/tmp/device-mig-check/device-mig
  rm -rf /tmp/device-mig-check && mkdir -p /tmp/device-mig-check
  tar -C /tmp/device-mig-check -xJf "$archive"
  echo "== nvidia-smi -L"; nvidia-smi -L || true
  echo "== MIG mode"; nvidia-smi --query-gpu=index,name,mig.mode.current,mig.mode.pending --format=csv || true
  echo "== nvidia-smi mig -lgip"; nvidia-smi mig -lgip || true
  echo "== nvidia-smi mig -lgi"; nvidia-smi mig -lgi || true
  echo "== /proc/driver/nvidia-caps/mig-minors (head)"; head -5 /proc/driver/nvidia-caps/mig-minors || true
  echo "== $test_class"
  cp="$pack/launcher:$pack/agent-test-classes:$pack/agent-classes:$pack/api-classes:$pack/core-classes:$pack/lib/*"
  rc=0
  "$pack/jre/bin/java" --enable-native-access=ALL-UNNAMED -cp "$cp" MigCheck "$test_class" || rc=$?
  echo "== after: MIG mode"; nvidia-smi --query-gpu=index,mig.mode.current,mig.mode.pending --format=csv || true
  echo "== summary: $test_class exit $rc (0: passed or skipped with its reason above)"
  exit $rc
  ;;
*)
  echo "usage: $0 pack | run [TEST_CLASS]" >&2
  exit 2
  ;;
esac
