"""The site's style sheet and the few lines of script that filter and sort the claims table."""

STYLE = """
body{font-family:system-ui,sans-serif;max-width:1500px;margin:1em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.4em}h3{font-size:1.05em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 6px;font-size:12px;
vertical-align:top;max-width:26em}th{background:#f3f3f3;cursor:pointer;user-select:none}
.CONFIRMED{background:#d8f0d8}.REFUTED{background:#f8d7d7}.INCONCLUSIVE{background:#fdf1c7}
.REPRODUCED{background:#d8f0d8}.LOOSE{background:#e6f2cf}.NOT-REPRODUCED{background:#e6e0f3}
p.citation{color:#444;font-style:italic;margin-top:-.4em}
.NO{color:#b00;font-weight:bold}.OK{color:#070}tr.control td.id{padding-left:1.8em}tr.control{color:#555}
tr.control td.CONFIRMED,tr.control td.REFUTED,tr.control td.INCONCLUSIVE{opacity:.55}
.tag{font-size:10px;background:#b00;color:#fff;border-radius:3px;padding:0 3px}
p.verdict{padding:4px 8px;display:inline-block;max-width:60em}
.override{background:#ffe3b3}.remark{color:#555;font-size:.9em}.formula svg{vertical-align:middle}
.prov{font-size:11px;color:#555;border-top:1px solid #ddd;margin-top:2em}.prov td{font-size:11px}
.filters{margin:.5em 0}.filters input,.filters select{margin-right:.6em}code{font-size:.95em}
figure{margin:.6em 0}.figs{display:flex;flex-wrap:wrap;gap:0 1em}figcaption{font-size:12px}
figure img{max-width:100%;border:1px solid #eee}.note{color:#555;font-style:italic}
table.printed caption{font-size:12px;text-align:left;color:#555}table.printed tr.measured td{background:#eef4fb}
table.printed td{text-align:right}table.printed td:first-child{text-align:left}
"""

# Filter rows by a text box and three selects; sort by clicking a column head (a control row keeps
# its claim's position: rows are sorted by their group's key, then by their order in the group).
SCRIPT = """
function svFilter(){const q=document.getElementById('q').value.toLowerCase();
 const sel={};document.querySelectorAll('.filters select').forEach(s=>sel[s.dataset.col]=s.value);
 document.querySelectorAll('#claims tbody tr').forEach(tr=>{
  let show=(tr.textContent+' '+tr.dataset.id).toLowerCase().includes(q);
  for(const c in sel){if(sel[c]&&tr.dataset[c]!==sel[c])show=false;}tr.style.display=show?'':'none';});}
function svSort(col){const tb=document.querySelector('#claims tbody');const rows=[...tb.rows];
 const dir=tb.dataset.sort===String(col)?-1:1;tb.dataset.sort=dir>0?String(col):'';
 const key=tr=>{const g=rows.find(r=>r.dataset.group===tr.dataset.group&&!r.classList.contains('control'))||tr;
  return g.cells[col].textContent;};
 rows.sort((a,b)=>dir*key(a).localeCompare(key(b),undefined,{numeric:true})||
  (Number(a.dataset.pos)-Number(b.dataset.pos)));rows.forEach(r=>tb.appendChild(r));}
"""
