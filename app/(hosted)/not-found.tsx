export default function HostedNotFound() {
  return (
    <main className="pay">
      <section className="card">
        <h1 className="title">This payment page does not exist</h1>
        <p>Check the link you were sent, or ask the merchant for a new one. You have not been charged.</p>
      </section>
    </main>
  );
}
