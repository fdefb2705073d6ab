# Portkey-AI/gateway PR #1551 ("avoid immutable header mutation for mapped
# streaming responses on node", commit 15bc858), applied to the minified
# build/start-server.js of @portkey-ai/gateway 1.15.2: in ResponseService.create,
# a mapped streaming response is copied into a new Response (mutable headers)
# before updateHeaders() appends Portkey's headers. Without it every translated
# stream fails with `TypeError: immutable` (HTTP 500). The PR's third condition,
# getRuntimeKey() == 'node', always holds in this node build and is left out.
# Usage: perl -0pi portkey_pr1551.pl build/start-server.js   (run.sh checks the marker)
s{(async create\(e\)\{const\{response:(\w+),responseTransformer:\w+,isResponseAlreadyMapped:(\w+),cache:(\w+),retryAttempt:(\w+),[^;]*;let (\w+),\w+,\w+;return [^;]*?),this\.updateHeaders\(\6,\4\.cacheStatus,\5\)}
 {$1,/*pr1551*/($3&&this.context.isStreaming&&($6=new Response($6.body,{status:$6.status,statusText:$6.statusText,headers:new Headers($6.headers)}))),this.updateHeaders($6,$4.cacheStatus,$5)};
