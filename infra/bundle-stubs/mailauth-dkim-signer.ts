import { unreachable } from "./unreachable.ts";

// mailauth's lib/dkim/dkim-signer.js as its ARC module (lib/arc/index.js) requires it: only ARC sealing
// (createSeal) constructs a DkimSigner. The DKIM verifier takes getARChain alone from that module.
export class DkimSigner {
  constructor() {
    unreachable("mailauth DkimSigner (ARC sealing)", "verify never seals ARC");
  }
}
