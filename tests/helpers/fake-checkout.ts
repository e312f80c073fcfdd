/**
 * A throwaway upstream checkout for the contract extractors' own tests (env vars, chart values, the DGD CRD),
 * so each test writes only the files its rule reads.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

export interface FakeCheckout {
  /** The checkout's root, under the system temp directory. */
  readonly root: string;
  /** Writes `text` to `rel` under the root, making its folders. */
  put(rel: string, text: string): void;
  /** Deletes the whole checkout. */
  remove(): void;
}

/** An empty checkout in a fresh temp directory named `<prefix>XXXXXX`. */
export function fakeCheckout(prefix: string): FakeCheckout {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    root,
    put: (rel, text) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    },
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}
