// pylti1p3's cookies-allowed check (web/lms/pages.py): inside an LMS's iframe, go on with the
// login only where the browser keeps a cookie in the frame; else offer a new window.
document.addEventListener("DOMContentLoaded", () => {
  const box = document.getElementById("lti-cookie-check");
  if (!box) return;
  const name = "lti1p3_cookie_check";
  document.cookie = `${name}=1; path=/; SameSite=None; Secure; Partitioned`;
  if (document.cookie.split("; ").includes(`${name}=1`)) {
    document.cookie = `${name}=; path=/; max-age=0; SameSite=None; Secure; Partitioned`;
    window.location.replace(box.dataset.target);
    return;
  }
  document.getElementById("lti-cookies-loading").hidden = true;
  document.getElementById("lti-cookies-blocked").hidden = false;
});
