package dev.quartermaster.core.env;

/** The deterministic env with a turn of up to {@code perTurn} tasks, counting the turns started. */
public final class BatchingEnv implements Env {
  public final DeterministicEnv inner = new DeterministicEnv(1);
  private final int perTurn;
  public int turns;

  public BatchingEnv(int perTurn) {
    this.perTurn = perTurn;
  }

  @Override
  public java.time.Instant now() {
    return inner.now();
  }

  @Override
  public long nanoTime() {
    return inner.nanoTime();
  }

  @Override
  public Cancellable schedule(java.time.Duration delay, Runnable task) {
    return inner.schedule(delay, task);
  }

  @Override
  public void execute(Runnable task) {
    turns++;
    inner.execute(task);
  }

  @Override
  public java.util.random.RandomGenerator random() {
    return inner.random();
  }

  @Override
  public int tasksPerTurn() {
    return perTurn;
  }
}
