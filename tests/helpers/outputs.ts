/**
 * Small helpers for reading what code under test produced: an Output's value (`promiseOf`, with a timeout) and
 * secrecy (`isSecret`), and the error a call throws (`thrown`, typed as the class the test expects).
 */
import * as pulumi from "@pulumi/pulumi";
import type { ValidationError } from "../../components/_shared/problems";

/** Resolves an Output's value (rejects after `ms` so an unknown value cannot hang a test). */
export function promiseOf<T>(o: pulumi.Output<T> | pulumi.Input<T>, ms = 5000): Promise<T> {
  const out = pulumi.output(o) as pulumi.Output<T>;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`output did not resolve within ${ms} ms (unknown in preview?)`)),
      ms,
    );
    out.apply((v) => {
      clearTimeout(timer);
      resolve(v as T);
      return v;
    });
  });
}

/** True when the Output is marked secret. */
export async function isSecret(o: pulumi.Output<unknown>): Promise<boolean> {
  return pulumi.isSecret(o);
}

/**
 * Runs `fn` expecting it to throw; returns the error (fails the test when nothing is thrown). The error is typed
 * as the class the test expects: the pure code's `ValidationError` unless `E` says otherwise; a test that may get
 * another class narrows it (`pulumi.InputPropertiesError.isInstance(e)`, `e instanceof ...`) before reading it.
 */
export function thrown<E extends Error = ValidationError>(fn: () => unknown): E {
  try {
    fn();
  } catch (e) {
    return e as E;
  }
  throw new Error("expected an error, but none was thrown");
}
