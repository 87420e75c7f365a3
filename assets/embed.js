/* bitbudget host script: resizes every bitbudget iframe on this page to its content. Include it
   once: <script src="https://YOUR-HOST/PATH/embed.js" async></script>. It listens for the
   widget's message {type: "bitbudget-height", id: "...", height: <CSS px>} and sets the height of
   the iframe that sent it (matched by window, never by id). No dependency; it sends nothing. */
(function () {
  if (window.bitbudgetEmbed) return;
  window.bitbudgetEmbed = true;
  window.addEventListener('message', function (e) {
    var d = e.data;
    if (!d || d.type !== 'bitbudget-height') return;
    var h = Number(d.height);
    if (!(h > 0 && h < 100000)) return;
    var frames = document.getElementsByTagName('iframe');
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === e.source) frames[i].style.height = Math.ceil(h) + 'px';
    }
  });
})();
