package dev.quartermaster.cli.warm;

import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.Invocation;
import dev.quartermaster.cli.Main;
import dev.quartermaster.cli.config.ApiConnector;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A user's warm client: one JVM, started by the launcher beside the first client command it runs
 * cold, that runs the user's later client commands (those {@link WarmCommands} serves) as {@link
 * Main#main} would, with the working directory, variables and arguments each command brings ({@link
 * WarmRequest}). What a fresh JVM spends before the command's first request (loading and linking
 * the command tree, Jackson and TLS, in an interpreter) it spends once.
 *
 * <p>The exchange: the launcher's {@link WarmRequest}; the answer {@code run} or {@code cold} with
 * the reply secret; {@code go} from the launcher, which waits 3 s for the answer and otherwise runs
 * the command itself; then the command's {@link Frames}.
 *
 * <p>It listens on loopback TCP, not a Unix socket, because bash (the launcher) can open the one
 * and not the other without starting a process; the {@link WarmEndpoint} file, readable by the user
 * alone, holds the secrets that make the port useless to anyone else. One runs per endpoint file (a
 * lock beside it); it ends after {@link #IDLE} without a command, when its jar changes (a rebuild:
 * it answers {@code cold} from then on, so no command runs old code), or when the endpoint file no
 * longer names it.
 */
public final class WarmClient implements AutoCloseable {
  /** How long it stays without a command; {@code -Dqm.warm.idle=PT…} to change it. */
  static final Duration IDLE = Duration.parse(System.getProperty("qm.warm.idle", "PT30M"));

  private final ServerSocket listener;
  private final WarmEndpoint endpoint;
  private final Path endpointFile;
  private final Optional<Path> jar;
  private final Optional<FileTime> jarTime;
  private final ApiConnector connector;
  private final Duration idle;
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicLong lastUse = new AtomicLong(System.nanoTime());
  private volatile boolean closed;

  private WarmClient(
      ServerSocket listener,
      Path endpointFile,
      Optional<Path> jar,
      ApiConnector connector,
      Duration idle)
      throws IOException {
    this.listener = listener;
    this.endpointFile = endpointFile;
    this.jar = jar;
    this.jarTime = jar.isEmpty() ? Optional.empty() : Optional.of(modified(jar.get()));
    this.connector = connector;
    this.idle = idle;
    this.endpoint = WarmEndpoint.fresh(listener.getLocalPort());
    endpoint.writeTo(endpointFile);
  }

  /**
   * {@code WarmClient ENDPOINT_FILE JAR}: serves until idle, replaced or outdated. Exits at once
   * when another warm client holds the endpoint's lock (two launchers started one each).
   */
  public static void main(String[] args) throws Exception {
    Main.nameSelectorProvider();
    var endpointFile = Path.of(args[0]).toAbsolutePath();
    var lockFile = endpointFile.resolveSibling(endpointFile.getFileName() + ".lock");
    try (var channel = ownerOnly(lockFile);
        var lock = channel.tryLock()) {
      if (lock == null) {
        return;
      }
      try (var warm =
          start(endpointFile, Optional.of(Path.of(args[1])), ApiConnector.http(), IDLE)) {
        var watch = Thread.ofPlatform().daemon().start(warm::watch);
        warm.serve();
        watch.interrupt();
        warm.awaitCommands();
      }
    }
    Runtime.getRuntime().halt(0); // as a client command ends: System.exit would start logging
  }

  /** Listens on a free loopback port and writes the endpoint file; {@link #serve} serves. */
  public static WarmClient start(
      Path endpointFile, Optional<Path> jar, ApiConnector connector, Duration idle)
      throws IOException {
    var listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    try {
      return new WarmClient(listener, endpointFile, jar, connector, idle);
    } catch (IOException | RuntimeException e) {
      listener.close();
      throw e;
    }
  }

  public WarmEndpoint endpoint() {
    return endpoint;
  }

  /** Accepts commands until closed, each on a virtual thread of its own. */
  public void serve() {
    while (!closed) {
      try {
        var socket = listener.accept();
        running.incrementAndGet();
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    handle(socket);
                  } finally {
                    lastUse.set(System.nanoTime());
                    running.decrementAndGet();
                  }
                });
      } catch (IOException e) {
        if (closed || listener.isClosed()) {
          return;
        }
      }
    }
  }

  /** Every 2 s: closes this when it has been idle too long, was replaced, or its jar changed. */
  void watch() {
    while (!closed) {
      try {
        Thread.sleep(2_000);
      } catch (InterruptedException e) {
        return;
      }
      if (shouldEnd()) {
        close();
      }
    }
  }

  /** Whether it should end: idle past its time, replaced by another, or its jar changed. */
  public boolean shouldEnd() {
    boolean idleTooLong = running.get() == 0 && System.nanoTime() - lastUse.get() > idle.toNanos();
    return idleTooLong
        || !WarmEndpoint.read(endpointFile).equals(Optional.of(endpoint))
        || outdated();
  }

  private boolean outdated() {
    try {
      return jar.isPresent() && !modified(jar.get()).equals(jarTime.orElseThrow());
    } catch (IOException e) {
      return true; // the jar is gone
    }
  }

  private void handle(Socket socket) {
    try (socket) {
      socket.setSoTimeout(10_000); // for the request: a command has no bound
      var in = new BufferedInputStream(socket.getInputStream());
      var out = new BufferedOutputStream(socket.getOutputStream());
      WarmRequest request;
      try {
        request = WarmRequest.read(in);
      } catch (IOException e) {
        return; // not the launcher: nothing is said
      }
      if (!MessageDigest.isEqual(
          request.secret().getBytes(StandardCharsets.UTF_8),
          endpoint.requestSecret().getBytes(StandardCharsets.UTF_8))) {
        return;
      }
      var line = Invocation.read(request.args().toArray(String[]::new));
      boolean serves = !closed && WarmCommands.serves(line) && !outdated();
      out.write(
          ((serves ? "run " : "cold ") + endpoint.replySecret() + "\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      // Run only once the launcher says so: one that gave up waiting for the answer has run the
      // command in a JVM of its own, and it must not run twice.
      if (serves && go(in)) {
        socket.setSoTimeout(0);
        run(request, line, new Frames(out));
      }
    } catch (IOException e) {
      // the launcher went away (Ctrl-C)
    }
  }

  private static boolean go(InputStream in) throws IOException {
    var expected = "go\n".getBytes(StandardCharsets.US_ASCII);
    return java.util.Arrays.equals(in.readNBytes(expected.length), expected);
  }

  private void run(WarmRequest request, Invocation line, Frames frames) {
    var charset = charset(request.variables());
    var out = new PrintWriter(new OutputStreamWriter(frames.out(), charset), true);
    var err = new PrintWriter(new OutputStreamWriter(frames.err(), charset), true);
    var home =
        Optional.ofNullable(request.variables().get("HOME"))
            .filter(h -> h.startsWith("/"))
            .orElse(System.getProperty("user.home"));
    var env =
        new CliEnvironment(
            request.variables(),
            request.workingDir(),
            Path.of(home),
            InputStream.nullInputStream(),
            Clock.systemUTC(),
            connector);
    var ticker =
        Thread.ofVirtual()
            .start(
                () -> {
                  while (true) {
                    try {
                      Thread.sleep(50);
                    } catch (InterruptedException e) {
                      return;
                    }
                    out.flush();
                    err.flush();
                    frames.send();
                  }
                });
    int exit;
    try {
      exit = Main.runClient(line, env, out, err);
    } catch (RuntimeException | StackOverflowError e) {
      err.println("error: " + e);
      exit = 1;
    }
    ticker.interrupt();
    try {
      ticker.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    out.flush();
    err.flush();
    frames.end(exit);
  }

  /** Waits until the commands accepted before {@link #close} are done. */
  public void awaitCommands() throws InterruptedException {
    while (running.get() > 0) {
      Thread.sleep(20);
    }
  }

  /**
   * The character set a JVM started in the launcher's locale would write: the codeset of the first
   * of {@code LC_ALL}, {@code LC_CTYPE}, {@code LANG} that is set ({@code en_US.UTF-8}), else
   * ASCII, as for the C locale.
   */
  static Charset charset(Map<String, String> variables) {
    for (var name : new String[] {"LC_ALL", "LC_CTYPE", "LANG"}) {
      var value = variables.getOrDefault(name, "");
      if (value.isEmpty()) {
        continue;
      }
      int dot = value.indexOf('.');
      if (dot < 0) {
        return StandardCharsets.US_ASCII;
      }
      var codeset = value.substring(dot + 1).replaceFirst("@.*", "");
      if (codeset.equalsIgnoreCase("utf8") || codeset.equalsIgnoreCase("utf-8")) {
        return StandardCharsets.UTF_8;
      }
      try {
        return Charset.forName(codeset);
      } catch (IllegalArgumentException e) {
        return StandardCharsets.US_ASCII;
      }
    }
    return StandardCharsets.US_ASCII;
  }

  /** Stops accepting; a command running finishes. Removes the endpoint file if it names this. */
  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      // closing
    }
    if (WarmEndpoint.read(endpointFile).equals(Optional.of(endpoint))) {
      try {
        Files.deleteIfExists(endpointFile);
      } catch (IOException e) {
        // another client's launcher finds no answer and runs cold
      }
    }
  }

  private static FileTime modified(Path file) throws IOException {
    return Files.getLastModifiedTime(file);
  }

  private static FileChannel ownerOnly(Path file) throws IOException {
    if (!Files.exists(file)) {
      try {
        Files.createFile(
            file,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } catch (java.nio.file.FileAlreadyExistsException e) {
        // another warm client made it: the lock decides
      }
    }
    return FileChannel.open(file, StandardOpenOption.WRITE);
  }
}
