package dev.quartermaster.core.env;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks code that reads the clock, sleeps, starts threads or draws randomness itself instead of
 * asking its {@link Env}: an {@code Env} implementation, or I/O at the edge that no simulated run
 * goes through. The build's forbidden-API check ({@code build-rules/outside-env.txt}) refuses these
 * calls everywhere else; {@link #value} says why this place may.
 */
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface OutsideEnv {
  /** Why this code may work outside {@link Env}. */
  String value();
}
