-- Headless Neovim as memlint's language server client (tests/cli/server_nvim.rs).
-- Starts `memlint server` for the workspace, opens a broken decision, waits
-- for the diagnostics and writes them to $OUT (one line each), then formats
-- $FMT_FILE through the server and writes the buffer to $FMT_OUT.
-- Works on Neovim 0.7 (start_client, formatting_sync) and later (format).
local bin, root, file = os.getenv("MEMLINT_BIN"), os.getenv("ROOT"), os.getenv("FILE")
local out = assert(io.open(os.getenv("OUT"), "w"))

local function finish(code)
  out:close()
  vim.cmd((code == 0) and "qa!" or "cq!")
end

local id = vim.lsp.start_client({ name = "memlint", cmd = { bin, "server" }, root_dir = root })
if not id then
  out:write("error: the client did not start\n")
  finish(1)
end

local function attach(path)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, id)
  return buf
end

local buf = attach(file)
local got = vim.wait(30000, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)
if not got then
  out:write("error: no diagnostics\n")
  finish(1)
end
local diags = vim.diagnostic.get(buf)
table.sort(diags, function(a, b)
  return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col)
end)
for _, d in ipairs(diags) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or ""
  out:write(string.format("%d:%d %s %s\n", d.lnum, d.col, code, d.message))
end

local fbuf = attach(os.getenv("FMT_FILE"))
vim.wait(10000, function()
  local c = vim.lsp.get_client_by_id(id)
  return c and c.initialized
end, 50)
if vim.lsp.buf.format then
  vim.lsp.buf.format({ bufnr = fbuf, async = false, timeout_ms = 20000 })
else
  vim.lsp.buf.formatting_sync(nil, 20000)
end
local lines = vim.api.nvim_buf_get_lines(fbuf, 0, -1, false)
local f = assert(io.open(os.getenv("FMT_OUT"), "w"))
f:write(table.concat(lines, "\n") .. "\n")
f:close()
vim.lsp.stop_client(id)
finish(0)
