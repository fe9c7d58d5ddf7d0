// Starts GraphiQL (the bundle of @graphql-yoga/render-graphiql, loaded before this file) with
// no inline script, so the page's CSP can allow scripts from this app only: the options and
// the URLs of Monaco's workers come from data attributes of the root element.
const root = document.getElementById('graphiql');
const workers = JSON.parse(root.dataset.workers);
self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_moduleId, label) => workers[label] };
YogaGraphiQL.renderYogaGraphiQL(root, JSON.parse(root.dataset.options));
