// A live twin's controls (book.plots.live.live_html): the values of the
// controls pick the precomputed frame shown, and the state line under the
// image names them. live_html drops these comment lines, each line's
// indentation and the line breaks (so nothing here may rely on a space or
// line break at the start or end of a line), and replaces LIVE_ID with the
// twin's element id as a JSON string.
(function(){
  var root=document.getElementById(LIVE_ID);
  var spec=JSON.parse(root.querySelector('script.live-spec').textContent);
  var frames=JSON.parse(root.querySelector('script.live-frames').textContent);
  var img=root.querySelector('img.live-figure');
  var state=root.querySelector('.live-state');
  function update(){
    var idx=spec.names.map(function(n){return root.querySelector('[data-param="'+n+'"]').value;});
    spec.names.forEach(function(n,j){
      root.querySelector('output[data-for="'+n+'"]').textContent=spec.labels[n][idx[j]];
    });
    img.src=frames[idx.join(',')];
    img.setAttribute('data-state',idx.join(','));
    state.textContent=spec.names.map(function(n,j){return n+' = '+spec.labels[n][idx[j]];}).join(', ');
  }
  root.querySelectorAll('[data-param]').forEach(function(c){
    c.addEventListener('input',update);
    c.addEventListener('change',update);
  });
  update();
})();
