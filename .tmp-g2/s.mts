import { generateDkimKey, signMessage } from "../shared/mail/dkim-sign.ts";
import { buildMessage } from "../test/helpers/dkim-test-keys.ts";
const key = await generateDkimKey({ bits: 1024 });
const s = await signMessage(buildMessage(), { domain: "example.com", selector: "s", privateKeyPem: key.privateKeyPem, headers: ["From","Subject"], signTime: new Date("2026-01-01T00:00:00Z"), expires: new Date("2026-01-02T00:00:00Z")});
console.log(s.toString().slice(0,400));
