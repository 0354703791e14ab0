import ipaddr from "ipaddr.js";
for (const a of ["::127.0.0.1","::8.8.8.8","64:ff9b::127.0.0.1","2002::127.0.0.1","::ffff:0:127.0.0.1","1::127.0.0.1", "2606:4700::8.8.8.8"]) { const p = ipaddr.parse(a) as ipaddr.IPv6; console.log(a, p.toNormalizedString(), p.range()); }
