/** The UI's stylesheet, inlined into every page (no external assets). */
export const PAGE_STYLE = `*{box-sizing:border-box}body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1f2328;background:#fff}main{padding:1em 1.5em 3em}
nav.top{display:flex;gap:1em;align-items:center;padding:.6em 1.5em;background:#24292f}nav.top a{color:#d0d7de;text-decoration:none}nav.top a.active{color:#fff;font-weight:600}nav.top .brand{margin-left:auto;color:#8c959f;font-size:12px}
h1{font-size:22px;margin:.3em 0}h2{font-size:17px;margin:1.2em 0 .4em;border-bottom:1px solid #d0d7de;padding-bottom:.2em}h3{font-size:14px;margin:.8em 0 .3em}
table{border-collapse:collapse;margin:.4em 0}th,td{border:1px solid #d0d7de;padding:3px 7px;text-align:left;vertical-align:top;font-size:12px}th{background:#f6f8fa;white-space:nowrap}
table.sortable th{cursor:pointer;user-select:none}table.sortable th[data-dir=asc]::after{content:" ▲"}table.sortable th[data-dir=desc]::after{content:" ▼"}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}pre{white-space:pre-wrap;overflow-wrap:break-word;background:#f6f8fa;padding:6px;margin:0}
.muted{color:#57606a}.small{font-size:12px}.headline{font-size:17px;font-weight:600}.meta{color:#57606a;font-size:12px}.charts{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0}figcaption{font-size:12px;color:#57606a}
.badge{display:inline-block;padding:0 6px;border-radius:10px;font-size:11px;font-weight:600;border:1px solid transparent}
.st-pass,.badge.pass{color:#1a7f37}.st-fail,.badge.fail{color:#d1242f}.st-void,.st-unmapped,.st-pending,.badge.void{color:#9a6700}
.badge.pass{background:#dafbe1}.badge.fail{background:#ffebe9}.badge.void{background:#fff8c5}.badge.control{background:#ddf4ff;color:#0969da}.badge.flip{background:#fbefff;color:#8250df}
#filters{display:flex;flex-wrap:wrap;gap:.8em;align-items:center;margin:.5em 0}#filters label{font-size:12px}
.grid td.cell{padding:0;text-align:center}.grid a.cell{display:block;width:28px;height:22px;line-height:22px;text-decoration:none;font-weight:700;color:#fff;border-radius:3px;margin:1px}
a.cell.pass{background:#2da44e}a.cell.fail{background:#cf222e}a.cell.void{background:#bf8700}a.cell.unmapped,a.cell.pending{background:#8c959f}
tr.flip-prone td.task::after{content:" ⇄";color:#8250df}
.panel{border:1px solid #d0d7de;border-radius:6px;padding:.6em .8em;margin:.6em 0}
.player{margin:.4em 0}audio{width:100%}
.tl{position:relative;display:grid;grid-template-columns:110px 1fr;row-gap:4px;margin:.5em 0}.tl .lbl{font-size:12px;color:#57606a;line-height:24px}.tl .overlay{position:absolute;top:0;bottom:0;left:110px;right:0;pointer-events:none}
.track{position:relative;height:24px;background:#f6f8fa;border-radius:3px}.track>*{position:absolute;top:2px;height:20px;border:0;padding:0 3px;font-size:11px;overflow:hidden;white-space:nowrap;cursor:pointer;border-radius:3px;color:#fff;text-align:left}
.track.wave{height:96px}.track.wave>canvas{top:0;left:0;width:100%;height:96px;padding:0;display:block}.track.axis{background:none}.track.axis>.tick{color:#57606a;cursor:default;padding:0}
.seg.caller{background:#0969da}.seg.agent{background:#8250df}.band{color:#1f2328!important;top:0!important;height:24px!important;border-right:2px solid #fff!important;cursor:pointer}
.ev{width:12px;min-width:12px;height:12px!important;margin-left:-6px;border-radius:50%!important;padding:0!important}.ev.tool{background:#1a7f37}.ev.tool.error{background:#d1242f}.ev.tool.refused{background:#bf8700}.ev.handoff{background:#0969da;border-radius:2px!important;transform:rotate(45deg);width:10px;min-width:10px;height:10px!important}
.ev.session{background:#57606a}#playhead{position:absolute;top:0;bottom:0;width:2px;background:#cf222e;left:0}
tr[data-at-ms]{cursor:pointer}tr[data-at-ms]:hover{background:#f6f8fa}.t{white-space:nowrap;color:#0969da}
.diff tr.diff-missing td.kind{color:#d1242f;font-weight:600}.diff tr.diff-extra td.kind{color:#9a6700;font-weight:600}.diff tr.diff-changed td.kind{color:#8250df;font-weight:600}.diff tr.allowed{opacity:.6}
.exp{background:#dafbe1}.act{background:#ffebe9}.arg-fail{display:block}
.graph svg{max-width:100%;height:auto}.legend span{margin-right:1em;font-size:12px}
.ok{color:#1a7f37}.bad{color:#d1242f}.na{color:#8c959f}
.layout{display:grid;grid-template-columns:minmax(0,1fr);gap:0}
main{max-width:100%;overflow-x:hidden}.scroll{max-width:100%;overflow-x:auto}table{display:block;max-width:100%;overflow-x:auto}.scroll>table{display:table}code{overflow-wrap:break-word}td{overflow-wrap:break-word}td.kind,td.rule,td.t,td.rank{overflow-wrap:normal;white-space:nowrap}.panel{max-width:100%;overflow-x:auto}
.chart-legend{display:flex;flex-wrap:wrap;gap:.3em 1em;max-width:420px}.chart-legend span{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:420px}figure.chart svg{max-width:100%;height:auto}
ul.headlines{margin:.3em 0;padding-left:1.2em}ul.headlines li{margin:.15em 0}.run-label{font-weight:600}
table.arg-diff{margin:.2em 0}table.arg-diff td,table.arg-diff th{font-size:11px;padding:1px 5px}tr.arg-bad{background:#ffebe9}tr.arg-extra{color:#57606a}
.paths-row{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}.paths-row .graph-svg{max-width:100%;overflow-x:auto}table.paths-side tr.diverges td{background:#ffebe9}table.paths-side tr.differs td{background:#fff8f0}
.ev.err{background:#d1242f;border-radius:0!important;clip-path:polygon(50% 0,100% 100%,0 100%)}.ev.err.warn{background:#bf8700}.track.errors{background:#fff5f5}.ev.duplex{background:#8250df;border-radius:2px!important}.ev.duplex.stale{background:#d1242f;border-radius:0!important}
table.paired td{min-width:7em;text-align:center}table.paired td.a-only,table.paired td.b-only{background:#fff8c5}table.cells td{border:0;padding:0}table.cells a.cell,.task-runs a.cell{display:inline-block;width:24px;height:20px;line-height:20px;text-align:center;text-decoration:none;font-weight:700;color:#fff;border-radius:3px;margin:1px}th.task-col{min-width:9em}table.differing-tasks td:first-child{min-width:9em}.p{font-weight:600}
tr.differing td.gate{min-width:12em}.method li{margin:.3em 0}.fast-note{background:#fff8c5;padding:4px 8px;border-radius:4px}
table.pins td,table.traits td{font-size:12px}q.line{font-style:italic}.measures{font-size:15px}
#picker{display:flex;gap:1em;align-items:center;flex-wrap:wrap}a[aria-disabled=true]{color:#8c959f;pointer-events:none}`;
