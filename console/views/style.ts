/** The console's only stylesheet, served from /static/console.css (the CSP allows styles from 'self' only). */
export const CONSOLE_CSS = `
:root { --fg:#1d232a; --muted:#5b6673; --line:#d8dee4; --bg:#fff; --accent:#0b5cad; --warn:#8a4b00; --bad:#a40e26; --ok:#1a7f37; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 0; }
header { display:flex; gap:1.5rem; align-items:center; padding:.6rem 1.2rem; border-bottom:1px solid var(--line); background:#f6f8fa; }
header nav a { margin-right: 1rem; }
header .who { margin-left:auto; color: var(--muted); display:flex; gap:.6rem; align-items:center; }
main { padding: 1rem 1.2rem; max-width: 1200px; }
a { color: var(--accent); }
h1 { font-size: 1.35rem; margin: .2rem 0 1rem; } h2 { font-size: 1.1rem; margin-top: 1.6rem; }
table { border-collapse: collapse; width: 100%; margin: .4rem 0 1rem; }
th, td { text-align:left; padding:.3rem .5rem; border-bottom:1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
code, pre, .mono { font-family: ui-monospace, monospace; font-size: 12.5px; }
.untrusted-box { border:1px dashed var(--warn); border-radius:4px; margin:.4rem 0; }
.untrusted-label { font-size: 11px; color: var(--warn); padding:.15rem .5rem; border-bottom:1px dashed var(--warn); }
pre.untrusted { margin:0; padding:.5rem; white-space: pre-wrap; word-break: break-word; background:#fffdf7; }
span.untrusted { background:#fffdf7; border-bottom:1px dashed var(--warn); }
.note { color: var(--muted); font-size: 12px; }
.status { font-size: 12px; padding: .05rem .4rem; border-radius: 3px; border:1px solid var(--line); white-space: nowrap; }
.s-ok, .s-applied { color: var(--ok); border-color: var(--ok); }
.s-failed, .s-refused { color: var(--bad); border-color: var(--bad); }
.s-proposed, .s-cancelled { color: var(--warn); border-color: var(--warn); }
.timeline li { margin: .15rem 0; } .timeline .round { font-weight: 600; margin-top:.5rem; }
.msg { border:1px solid var(--line); border-radius:4px; padding:.5rem .7rem; margin:.6rem 0; }
.msg.out { background:#f6f8fa; }
form.inline { display:inline; }
fieldset { border:1px solid var(--line); margin: .6rem 0; padding:.6rem; }
label { display:block; margin:.3rem 0; } input[type=text], textarea, select { width: 100%; max-width: 640px; }
.issues { color: var(--bad); } .flash { padding:.4rem .6rem; border:1px solid var(--line); background:#f6f8fa; }
.pager { margin: .5rem 0 1.5rem; }
button { cursor: pointer; }
button.danger { color: var(--bad); border:1px solid var(--bad); }
td, th { overflow-wrap: anywhere; }
/* A label breaks between words, never inside one: with "anywhere", a row label beside long content (the agent
   page's instructions at 390 px) shrank to one letter a line. Its longest word sets its width. */
th, label, legend { overflow-wrap: normal; word-break: normal; }
.scroll { overflow-x: auto; }
time .ago, .ago { color: var(--muted); }
.kind { font-size: 12px; padding: 0 .35rem; border-radius: 3px; border:1px solid var(--line); white-space: nowrap; }
.k-refused, .k-dropped { color: var(--bad); border-color: var(--bad); }
.k-accepted, .k-sent { color: var(--ok); border-color: var(--ok); }
.k-plan { color: var(--warn); border-color: var(--warn); }
/* Who wrote a box's text: the sender (dashed amber), the model (dashed violet), a tool (dashed teal), the agent's
   sent mail and your own mail (dashed grey). */
.by-model { border-color:#6a3fb5; } .by-model .untrusted-label { color:#6a3fb5; border-color:#6a3fb5; }
.by-tool { border-color:#0a6b73; } .by-tool .untrusted-label { color:#0a6b73; border-color:#0a6b73; }
.by-server { border-color:#8a4b08; } .by-server .untrusted-label { color:#8a4b08; border-color:#8a4b08; }
code.secret { word-break:break-all; }
.by-agent, .by-you { border-color: var(--muted); } .by-agent .untrusted-label, .by-you .untrusted-label { color: var(--muted); border-color: var(--muted); }
/* A phone (390 px): the header wraps, wide tables scroll inside themselves, the page never scrolls sideways. */
@media (max-width: 700px) {
  header { flex-wrap: wrap; gap: .4rem .8rem; padding: .5rem .7rem; }
  header nav { display:flex; flex-wrap: wrap; gap: .2rem .9rem; } header nav a { margin-right: 0; }
  header .who { margin-left: 0; flex-wrap: wrap; }
  main { padding: .7rem; }
  table { display: block; overflow-x: auto; }
  input[type=text], textarea, select { max-width: 100%; }
  pre, code { overflow-wrap: anywhere; }
}
`;
