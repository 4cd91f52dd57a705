import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { ApiError, formatWait, post } from "../api/client";

/** Why a sign-in failed, in words a person can act on. */
function loginErrorText(error: unknown): string {
  if (!(error instanceof ApiError)) return "Signing in failed. Try again.";
  if (error.status === 401) return "Wrong user name or password.";
  if (error.status === 429) {
    const wait = error.retryAfter ?? 15 * 60;
    const until = new Date(Date.now() + wait * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    return (
      `Too many failed sign-ins from your address. Try again in ${formatWait(wait)} (at ${until}); ` +
      "until then even the right password is refused."
    );
  }
  if (error.status === 400) return "Enter your user name and your password.";
  if (error.status === 0) return "The server cannot be reached. Check your connection and try again.";
  return `Signing in failed (HTTP ${error.status}). Try again later.`;
}

/** Only paths of this app: a `next` pointing elsewhere would make the login a redirector. */
function safeNext(next: string | null): string {
  return next?.startsWith("/") && !next.startsWith("//") && !next.startsWith("/login") ? next : "/";
}

export default function LoginPage() {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const login = useMutation({
    mutationFn: () => post("/auth/login-local", { username: username.trim(), password }),
    onSuccess: async () => {
      queryClient.clear();
      navigate(safeNext(params.get("next")), { replace: true });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate();
  };

  return (
    <Center mih="100vh" p="md">
      <Stack w="100%" maw={380}>
        <Title order={1} size="h2" ta="center">
          Pagewright
        </Title>
        <Paper withBorder p="lg" component="form" onSubmit={submit} aria-label="Sign in">
          <Stack>
            <TextInput
              label="User name"
              name="username"
              autoComplete="username"
              required
              autoFocus
              value={username}
              onChange={(e) => setUsername(e.currentTarget.value)}
            />
            <PasswordInput
              label="Password"
              name="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
            />
            {login.error && (
              <Alert color="red" role="alert" title="Not signed in">
                {loginErrorText(login.error)}
              </Alert>
            )}
            <Button type="submit" loading={login.isPending}>
              Sign in
            </Button>
          </Stack>
        </Paper>
        <Anchor href="/llms.txt" size="sm" ta="center">
          Guide for AI agents (llms.txt)
        </Anchor>
      </Stack>
    </Center>
  );
}
