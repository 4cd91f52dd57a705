import { Center, Loader } from "@mantine/core";

export function PageLoader() {
  return (
    <Center py="xl" aria-busy="true">
      <Loader size="sm" aria-label="Loading" />
    </Center>
  );
}
