/**
 * The UI's client scripts: our own constant source, inlined into pages. They read data only from
 * `data-*` attributes and JSON islands, never from the URL except filter values read back into
 * `<select>` elements, and they never insert markup.
 */

/** Click a column header of a `table.sortable` to sort its rows (numbers by `data-v`, empty last). */
export const SORT_SCRIPT = `(function(){
function val(cell){var v=cell.hasAttribute('data-v')?cell.getAttribute('data-v'):cell.textContent.trim();return v;}
document.querySelectorAll('table.sortable').forEach(function(t){
  t.querySelectorAll('thead th').forEach(function(th,i){
    th.addEventListener('click',function(){
      var body=t.tBodies[0];var rows=[].slice.call(body.rows);
      var dir=th.getAttribute('data-dir')==='desc'?'asc':'desc';
      t.querySelectorAll('thead th').forEach(function(h){h.removeAttribute('data-dir');});
      th.setAttribute('data-dir',dir);
      rows.sort(function(x,y){
        var a=val(x.cells[i]),b=val(y.cells[i]);
        if(a===''&&b==='')return 0;if(a==='')return 1;if(b==='')return -1;
        var an=Number(a),bn=Number(b);
        var r=(!isNaN(an)&&!isNaN(bn))?an-bn:a.localeCompare(b);
        return dir==='asc'?r:-r;
      });
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
});
})();`;

/** The task grid's filters: each `<select name=X>` keeps rows whose `data-X` holds the value (`|a|b|`). */
export const FILTER_SCRIPT = `(function(){
var form=document.getElementById('filters');if(!form)return;
var selects=[].slice.call(form.querySelectorAll('select'));
function apply(){
  var shown=0;
  document.querySelectorAll('#grid tbody tr').forEach(function(r){
    var ok=selects.every(function(s){return !s.value||(r.getAttribute('data-'+s.name)||'').indexOf('|'+s.value+'|')>=0;});
    r.hidden=!ok;if(ok)shown++;
  });
  document.getElementById('shown').textContent=String(shown);
  var h=selects.filter(function(s){return s.value;}).map(function(s){return s.name+'='+encodeURIComponent(s.value);}).join('&');
  try{history.replaceState(null,'',h?'#'+h:location.pathname+location.search);}catch(e){}
}
location.hash.replace(/^#/,'').split('&').forEach(function(kv){
  var i=kv.indexOf('=');if(i<0)return;var k=kv.slice(0,i),v=decodeURIComponent(kv.slice(i+1));
  selects.forEach(function(s){if(s.name===k&&[].some.call(s.options,function(o){return o.value===v;}))s.value=v;});
});
selects.forEach(function(s){s.addEventListener('change',apply);});
apply();
})();`;

/** The conversation player: draws the stereo waveform on a canvas and plays from any clicked event. */
export const PLAYER_SCRIPT = `(function(){
var audio=document.getElementById('audio');var canvas=document.getElementById('wave');var head=document.getElementById('playhead');
var island=document.getElementById('wave-data');var data=island?JSON.parse(island.textContent):null;
var durMs=Number(document.body.getAttribute('data-duration-ms'))||1;
function draw(ms){
  if(!canvas||!canvas.getContext)return;var dpr=window.devicePixelRatio||1;
  var w=canvas.clientWidth*dpr,h=canvas.clientHeight*dpr;if(canvas.width!==w)canvas.width=w;if(canvas.height!==h)canvas.height=h;
  var g=canvas.getContext('2d');g.clearRect(0,0,w,h);
  var at=ms/durMs*w;
  if(data&&data.left&&data.left.length){
    var lanes=[[data.left,h*0.25,'#0969da'],[data.right,h*0.75,'#8250df']];
    lanes.forEach(function(l){
      var peaks=l[0],mid=l[1];var span=data.durationMs/durMs*w;
      for(var x=0;x<Math.min(w,span);x++){
        var p=peaks[Math.floor(x/span*peaks.length)]||0;var a=Math.max(1,p*h*0.24);
        g.fillStyle=x<at?l[2]:'#9aa4ae';g.fillRect(x,mid-a,1,a*2);
      }
    });
  }
  g.fillStyle='#57606a';g.font=(10*dpr)+'px sans-serif';g.fillText('caller (left)',4*dpr,12*dpr);g.fillText('agent (right)',4*dpr,h/2+12*dpr);
}
function show(ms){if(head)head.style.left=Math.min(100,Math.max(0,ms/durMs*100))+'%';draw(ms);}
function seek(ms){
  if(!audio)return;
  audio.currentTime=ms/1000;
  var p=audio.play();if(p&&p.catch)p.catch(function(){});
  show(ms);
}
document.querySelectorAll('[data-at-ms]').forEach(function(el){
  el.addEventListener('click',function(e){if(e.target.closest&&e.target.closest('a[href]'))return;e.preventDefault();seek(Number(el.getAttribute('data-at-ms')));});
});
if(canvas)canvas.addEventListener('click',function(e){var r=canvas.getBoundingClientRect();seek((e.clientX-r.left)/r.width*durMs);});
if(audio){audio.addEventListener('timeupdate',function(){show(audio.currentTime*1000);});audio.addEventListener('seeked',function(){show(audio.currentTime*1000);});}
window.addEventListener('resize',function(){show(audio?audio.currentTime*1000:0);});
show(0);
})();`;

/** The store's run list: check runs to build the link to their comparison (`<base><id+id>/compare.html`). */
export const RUN_PICKER_SCRIPT = `(function(){
var picker=document.getElementById('picker');if(!picker)return;
var base=picker.getAttribute('data-base')||'';var fast=document.getElementById('fast');var link=document.getElementById('compare-picked');var count=document.getElementById('picked');
function prefix(){return fast&&fast.checked?base.replace(/default\\/$/,'fast/'):base;}
function update(){
  var ids=[].slice.call(document.querySelectorAll('input.pick')).filter(function(c){return c.checked;}).map(function(c){return c.value;});
  count.textContent=ids.length+' picked';
  if(ids.length>=2){link.setAttribute('href',prefix()+ids.join('+')+'/compare.html');link.removeAttribute('aria-disabled');}
  else{link.setAttribute('href','#');link.setAttribute('aria-disabled','true');}
  document.querySelectorAll('a.open-run').forEach(function(a){var id=a.closest('tr').getAttribute('data-run');a.setAttribute('href',prefix()+id+'/index.html');});
}
document.querySelectorAll('input.pick').forEach(function(c){c.addEventListener('change',update);});
if(fast)fast.addEventListener('change',update);
update();
})();`;
