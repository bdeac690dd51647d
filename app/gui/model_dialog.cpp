#include "app/gui/model_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>

#include "model/model_zoo.h"
#include "views/models/model_title.h"

namespace ts {

namespace {
constexpr char kLastModel[] = "model/last", kLastBatch[] = "model/batch";
}  // namespace

ModelDialog::ModelDialog(const QString& title, const QString& batchLabel, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(title);
  setObjectName(QStringLiteral("modelDialog"));
  auto* form = new QFormLayout(this);
  source_ = new QComboBox(this);
  source_->setObjectName(QStringLiteral("modelSource"));
  source_->addItem(tr("An ONNX file"), QString());
  for (const std::string& name : model::zooModels())
    source_->addItem(tr("Built-in: %1").arg(QString::fromStdString(name)),
                     QString::fromStdString(name));
  form->addRow(tr("Model:"), source_);
  auto* fileRow = new QHBoxLayout;
  file_ = new QLineEdit(this);
  file_->setObjectName(QStringLiteral("modelFile"));
  file_->setPlaceholderText(tr("path/to/model.onnx"));
  file_->setMinimumWidth(360);
  browse_ = new QPushButton(tr("Browse…"), this);
  fileRow->addWidget(file_, 1);
  fileRow->addWidget(browse_);
  form->addRow(tr("File:"), fileRow);
  batch_ = new QSpinBox(this);
  batch_->setObjectName(QStringLiteral("modelBatch"));
  batch_->setRange(1, 1 << 16);
  batch_->setValue(QSettings().value(QLatin1String(kLastBatch), 32).toInt());
  if (!batchLabel.isEmpty()) form->addRow(batchLabel, batch_);
  batch_->setVisible(!batchLabel.isEmpty());
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  ok_ = buttons->button(QDialogButtonBox::Ok);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(browse_, &QPushButton::clicked, this, [this] {
    QString path = QFileDialog::getOpenFileName(this, windowTitle(), file_->text(),
                                                tr("ONNX models (*.onnx);;All files (*)"));
    if (!path.isEmpty()) file_->setText(path);
  });
  connect(source_, &QComboBox::currentIndexChanged, this, &ModelDialog::update);
  connect(file_, &QLineEdit::textChanged, this, &ModelDialog::update);
  // The last model chosen: a built-in's name or a file's path.
  const QString last = QSettings().value(QLatin1String(kLastModel)).toString();
  if (int at = source_->findData(last); at > 0)
    source_->setCurrentIndex(at);
  else
    file_->setText(last);
  update();
}

void ModelDialog::update() {
  const bool fromFile = source_->currentIndex() == 0;
  file_->setEnabled(fromFile);
  browse_->setEnabled(fromFile);
  ok_->setEnabled(!fromFile || !file_->text().trimmed().isEmpty());
}

QString ModelDialog::builtIn() const {
  return source_->currentData().toString();
}

QString ModelDialog::file() const {
  return builtIn().isEmpty() ? file_->text().trimmed() : QString();
}

int ModelDialog::batch() const {
  return batch_->value();
}

void ModelDialog::remember(const QString& modelPath, int batch) {
  QSettings settings;
  const QString name = builtInName(modelPath);
  settings.setValue(QLatin1String(kLastModel), name.isEmpty() ? modelPath : name);
  settings.setValue(QLatin1String(kLastBatch), batch);
}

void ModelDialog::accept() {
  QSettings settings;
  settings.setValue(QLatin1String(kLastModel), builtIn().isEmpty() ? file() : builtIn());
  if (batch_->isVisible()) settings.setValue(QLatin1String(kLastBatch), batch());
  QDialog::accept();
}

}  // namespace ts
