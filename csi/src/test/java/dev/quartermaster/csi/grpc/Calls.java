package dev.quartermaster.csi.grpc;

import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiException;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Test helpers: bounded waits on calls, short socket directories, raw channels for calls CsiPlugin
 * lacks.
 */
public final class Calls {
  private Calls() {}

  /**
   * The call's value; a failure is rethrown as its CsiException. Bounded, so a hang fails the test.
   */
  public static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw CsiException.of(CsiCall.Probe, e.getCause());
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("call did not finish in 30 s", e);
    }
  }

  /** The CsiException the call failed with; AssertionError if it succeeded. */
  public static CsiException failure(CompletionStage<?> stage) {
    try {
      var value = await(stage);
      throw new AssertionError("expected the call to fail, it returned " + value);
    } catch (CsiException e) {
      return e;
    }
  }

  /** A fresh directory under /tmp, short enough for socket paths (sun_path is 108 bytes). */
  public static Path shortTempDir() {
    try {
      return Files.createTempDirectory(Path.of("/tmp"), "qmcsi");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A raw channel to a socket, for stubs; close it with {@link #close}. */
  public record RawChannel(ManagedChannel channel, EventLoopGroup group) implements AutoCloseable {
    public static RawChannel open(Path socket) {
      var group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
      var channel =
          NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
              .channelType(EpollDomainSocketChannel.class, DomainSocketAddress.class)
              .eventLoopGroup(group)
              .usePlaintext()
              .build();
      return new RawChannel(channel, group);
    }

    @Override
    public void close() {
      channel.shutdownNow();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  /** Deletes a test directory tree (links are removed, never followed). */
  public static void deleteTree(Path root) {
    if (root == null || !Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (var walk = Files.walk(root)) {
      for (var p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
