#include "app/gui/g10_inputs_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFormLayout>
#include <QLabel>

namespace ts {

G10InputsDialog::G10InputsDialog(const QString& root, std::vector<memsim::G10InputsModel> models,
                                 QWidget* parent)
    : QDialog(parent), models_(std::move(models)) {
  setWindowTitle(tr("G10 model and batch"));
  setMinimumWidth(480);  // room for the folder's path
  auto* form = new QFormLayout(this);
  auto* where = new QLabel(tr("G10's inputs in %1: its model files and the kernel times it "
                              "measured for each batch size.")
                               .arg(QDir::toNativeSeparators(root)),
                           this);
  where->setWordWrap(true);
  form->addRow(where);
  model_ = new QComboBox(this);
  model_->setObjectName(QStringLiteral("g10Model"));
  for (const auto& m : models_) model_->addItem(QString::fromLatin1(m.info->experiment));
  batch_ = new QComboBox(this);
  batch_->setObjectName(QStringLiteral("g10Batch"));
  batch_->setToolTip(tr("The batch sizes G10 traced this model at"));
  form->addRow(tr("Model"), model_);
  form->addRow(tr("Batch"), batch_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(model_, &QComboBox::currentIndexChanged, this, &G10InputsDialog::fillBatches);
  fillBatches();
}

void G10InputsDialog::fillBatches() {
  batch_->clear();
  const int i = model_->currentIndex();
  if (i < 0 || static_cast<size_t>(i) >= models_.size()) return;
  for (int64_t b : models_[static_cast<size_t>(i)].batches)
    batch_->addItem(QString::number(b), QVariant::fromValue<qlonglong>(b));
}

QString G10InputsDialog::model() const {
  return model_->currentText();
}

int64_t G10InputsDialog::batch() const {
  return batch_->currentData().toLongLong();
}

}  // namespace ts
